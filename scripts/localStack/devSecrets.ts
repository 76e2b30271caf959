import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE, makePrivateDirectory, narrowToOwner } from "../../gateway/crypto/privateFiles";

/** Secrets of the local stack, generated once per data directory so tokens and sealed secrets survive a restart. */
export interface DevSecrets {
  readonly tokenSecret: string;
  /** The local stack's SECRETS_KEY (64 hex digits): seals the demo provider's HS256 secret. */
  readonly secretsKey: string;
  /** The local stack's AUDIT_LOG_KEY (64 hex digits): chains its signature audit log (`audit verify` needs it). */
  readonly auditLogKey: string;
}

/**
 * Reads `<dataDir>/dev-secrets.json`, creating it (mode 0600) on first use; a file from before the secrets key or the
 * audit log key gets the one it lacks added. For the local stack only: a deployment sets AUTH_TOKEN_SECRET,
 * SECRETS_KEY and AUDIT_LOG_KEY itself.
 */
export function loadDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, "dev-secrets.json");
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<DevSecrets>) : {};
  if (stored.tokenSecret && stored.secretsKey && stored.auditLogKey) return stored as DevSecrets;
  makePrivateDirectory(dataDir);
  const secrets: DevSecrets = {
    tokenSecret: stored.tokenSecret ?? randomBytes(32).toString("base64url"),
    secretsKey: stored.secretsKey ?? randomBytes(32).toString("hex"),
    auditLogKey: stored.auditLogKey ?? randomBytes(32).toString("hex"),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  narrowToOwner(file);
  return secrets;
}
