import { createAppTokens } from "../../gateway/auth/appTokens";
import { parseRate } from "../../gateway/config/policySettings";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { freshPostgresDatabase } from "./postgresServer";
import type { prepareServiceOnChain } from "./serviceOnChain";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;

/**
 * A fresh PostgreSQL database that several service instances on `setup`'s chain share, with an app (a rate and budget
 * no test comes near) and its bearer token; `env` runs an instance on it, with `extra` settings.
 */
export async function sharedDatabaseApp(setup: Setup, name: string, extra: Record<string, string> = {}) {
  const databaseUrl = await freshPostgresDatabase(name.replace(/-/g, "_"));
  const database = await openDatabase(databaseUrl);
  const repositories = createRepositories(database.db, () => new Date());
  const { app } = await repositories.apps.create({ name });
  await repositories.apps.setPolicy(app.id, { rate: parseRate("10000/min")!, budgetGas: 10n ** 13n });
  const env = setup.env(setup.chain.rpcUrl, { DATABASE_URL: databaseUrl, ...extra });
  const tokens = createAppTokens({
    secret: env.AUTH_TOKEN_SECRET!,
    issuer: "idwallet",
    audience: "idwallet-api",
    clock: () => new Date(),
  });
  return { database, repositories, env, appToken: (await tokens.issue(app)).token };
}
