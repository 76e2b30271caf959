import { randomBytes } from "node:crypto";
import type { Config } from "../../gateway/config/schema";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { createSecretsKeyring } from "../../gateway/crypto/secretsKeyring";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";

/** Name of the app the local stack registers for trying the API. */
export const DEMO_APP_NAME = "demo";
/** The provider the demo app owns: in test mode its ids (`demo:alice`) act with a blank `auth`. */
export const DEMO_PROVIDER = "demo";
/** The `iss` and `aud` a proof of a real demo user would carry. */
export const DEMO_PROVIDER_ISSUER = "https://demo.idwallet.localhost";
export const DEMO_PROVIDER_AUDIENCE = "idwallet-local";

/**
 * Registers the demo app (test mode) and its own provider `demo` on first start; on later starts rotates its
 * secret, since secrets are stored hashed and can only be shown when they are made.
 */
export async function prepareDemoApp(
  config: Pick<Config, "databasePath" | "databaseUrl" | "secrets">,
): Promise<{ clientId: string; clientSecret: string }> {
  const database = await openDatabase(databaseLocation(config));
  try {
    const secrets = createSecretsKeyring(config.secrets);
    const { apps, providers } = createRepositories(database.db, () => new Date(), { secrets });
    const existing = (await apps.list()).find((app) => app.name === DEMO_APP_NAME);
    const { app, clientSecret } = existing
      ? await apps.rotateSecret(existing.id)
      : await apps.create({ name: DEMO_APP_NAME, testMode: true });
    // Listed, not read: a demo provider stored by an older version (its secret in plain text) is sealed at start-up.
    // Registered on first start, and again when an older start registered it without issuer and audience.
    const demo = (await providers.list()).find((row) => row.provider === DEMO_PROVIDER);
    if (!demo || (demo.disabledAt === undefined && demo.outdated)) {
      // Proofs of real demo users would be HS256 tokens signed with this key; in test mode blank auth works.
      const secret = randomBytes(32).toString("base64url");
      await providers.register(app.id, DEMO_PROVIDER, {
        key: { kind: "hs256", secret },
        issuer: DEMO_PROVIDER_ISSUER,
        audience: DEMO_PROVIDER_AUDIENCE,
      });
    }
    return { clientId: app.clientId, clientSecret };
  } finally {
    await database.close();
  }
}
