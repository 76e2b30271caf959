import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Secrets of the local stack, generated once per data directory so tokens survive a restart. */
export interface DevSecrets {
  readonly tokenSecret: string;
}

/** Reads `<dataDir>/dev-secrets.json`, creating it (mode 0600) on first use. */
export function loadDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, "dev-secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as DevSecrets;
  mkdirSync(dataDir, { recursive: true });
  const secrets: DevSecrets = { tokenSecret: randomBytes(32).toString("base64url") };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
