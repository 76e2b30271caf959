import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/**
 * Reads a dotenv file (`NAME=value` lines, the format of process.loadEnvFile) into `env`, as hardhat.config.ts does
 * for `npm start` and `npm run deploy`, the environment winning: a variable already set, even to "", keeps its
 * value. Only a cluster's primary reads it (`primary`): a worker gets the primary's environment, from which the
 * primary removed the keys it alone holds (custody/clusterCustody.ts); reading the file again would give them back.
 * Returns the names it set; none when the file is absent.
 */
export function readEnvFile(file: string, env: NodeJS.ProcessEnv, primary: boolean): string[] {
  if (!primary || !existsSync(file)) return [];
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, "utf8")))) {
    if (env[name] !== undefined || value === undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
