import { renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE, makePrivateDirectory, narrowToOwner } from "../../gateway/crypto/privateFiles";

/** The file in the data directory holding the settings the local stack gave its service (CONFIG_FILE's shape). */
export const LOCAL_STACK_CONFIG_FILE = "local-stack.config.json";

/**
 * Writes `input`, the configuration the local stack gave its service (configInputOf: database, secrets key, audit
 * key, webhook rules, contracts, …), to `<dataDir>/local-stack.config.json`, mode 0600 (it holds the secrets key). The
 * admin CLI run beside the stack reads it as its CONFIG_FILE, so both apply the same settings (scripts/admin/
 * adminSettings.ts). Written whole to a temporary file and renamed, so a CLI started meanwhile never reads half of it.
 */
export function writeLocalStackConfig(dataDir: string, input: Record<string, unknown>): string {
  makePrivateDirectory(dataDir);
  const file = path.join(dataDir, LOCAL_STACK_CONFIG_FILE);
  const partial = `${file}.${process.pid}.tmp`;
  // Paths made absolute: the CLI may run from another directory than the stack did.
  const absolute = (value: unknown) => (typeof value === "string" ? path.resolve(value) : value);
  const settings = { ...input, dataDir: absolute(input.dataDir), databasePath: absolute(input.databasePath) };
  writeFileSync(partial, `${JSON.stringify(settings, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  narrowToOwner(partial);
  renameSync(partial, file);
  return file;
}
