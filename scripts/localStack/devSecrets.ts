import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE, makePrivateDirectory } from "../../gateway/storage/privateFiles";

/** Secrets of the local stack, generated once per data directory so tokens survive a restart. */
export interface DevSecrets {
  readonly tokenSecret: string;
}

/** Reads `<dataDir>/dev-secrets.json`, creating it (mode 0600) on first use. */
export function loadDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, "dev-secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as DevSecrets;
  makePrivateDirectory(dataDir);
  const secrets: DevSecrets = { tokenSecret: randomBytes(32).toString("base64url") };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  return secrets;
}
