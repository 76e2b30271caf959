import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { ConfigError } from "./load";

/**
 * Reads the dotenv file (`NAME=value` lines, the format of process.loadEnvFile) into `env`, as hardhat.config.ts does
 * for `npm start` and `npm run deploy`, the environment winning: a variable already set, even to "", keeps its value.
 * The file is ENV_FILE's (which must exist; "" for none), else the working directory's `.env` when there is one.
 * Only a cluster's primary reads it (`primary`): a worker gets the primary's environment, from which the primary
 * removed the keys it alone holds (custody/clusterCustody.ts); reading the file again would give them back.
 * Returns the names it set.
 */
export function readEnvFile(env: NodeJS.ProcessEnv, primary: boolean): string[] {
  const named = env.ENV_FILE;
  if (!primary || named === "") return [];
  const file = named ?? ".env";
  if (named === undefined && !existsSync(file)) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`ENV_FILE ${file}: ${(error as Error).message}`);
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined || value === undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
