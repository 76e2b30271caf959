import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { PRIVATE_FILE_MODE, narrowToOwner } from "../../gateway/crypto/privateFiles";
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

/** The demo app's credentials, as `<dataDir>/demo-app.json` holds them. */
const DemoAppCredentials = z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1) });
export type DemoAppCredentials = z.infer<typeof DemoAppCredentials>;

/** Where the local stack writes the demo app's client id and secret (owner-only): `<dataDir>/demo-app.json`. */
export const demoAppFile = (dataDir: string): string => path.join(dataDir, "demo-app.json");

/** The credentials in `file`, or undefined if there are none readable. */
function readCredentials(file: string): DemoAppCredentials | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return DemoAppCredentials.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

/**
 * Registers the demo app (test mode) and its own provider `demo` on first start, and writes its client id and secret
 * to `<dataDir>/demo-app.json` (0600): the secret is stored hashed, so that file is the only place it can be read
 * again. Later starts keep the app and the secret in that file while they still match (tokens and any `.env` holding
 * them go on working); only a file lost, edited or of another database gets the secret rotated and written anew.
 */
export async function prepareDemoApp(
  config: Pick<Config, "databasePath" | "databaseUrl" | "secrets" | "dataDir">,
): Promise<DemoAppCredentials> {
  const database = await openDatabase(databaseLocation(config));
  try {
    const secrets = createSecretsKeyring(config.secrets);
    const { apps, providers } = createRepositories(database.db, () => new Date(), { secrets });
    const file = demoAppFile(config.dataDir);
    const saved = readCredentials(file);
    const existing = (await apps.list()).find((app) => app.name === DEMO_APP_NAME);
    let credentials: DemoAppCredentials;
    let appId: string;
    if (
      existing !== undefined &&
      saved?.clientId === existing.clientId &&
      (await apps.verifySecret(saved.clientId, saved.clientSecret)) !== undefined
    ) {
      credentials = saved;
      appId = existing.id;
    } else {
      const made = existing
        ? await apps.rotateSecret(existing.id)
        : await apps.create({ name: DEMO_APP_NAME, testMode: true });
      credentials = { clientId: made.app.clientId, clientSecret: made.clientSecret };
      appId = made.app.id;
      writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
      narrowToOwner(file);
    }
    // Listed, not read: a demo provider stored by an older version (its secret in plain text) is sealed at start-up.
    // Registered on first start, and again when an older start registered it without issuer and audience.
    const demo = (await providers.list()).find((row) => row.provider === DEMO_PROVIDER);
    if (!demo || (demo.disabledAt === undefined && demo.outdated)) {
      // Proofs of real demo users would be HS256 tokens signed with this key; in test mode blank auth works.
      const secret = randomBytes(32).toString("base64url");
      await providers.register(appId, DEMO_PROVIDER, {
        key: { kind: "hs256", secret },
        issuer: DEMO_PROVIDER_ISSUER,
        audience: DEMO_PROVIDER_AUDIENCE,
      });
    }
    return credentials;
  } finally {
    await database.close();
  }
}
