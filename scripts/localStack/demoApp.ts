import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";

/** Name of the app the local stack registers for trying the API. */
export const DEMO_APP_NAME = "demo";

/**
 * Registers the demo app (test mode) on first start; on later starts rotates its secret, since secrets
 * are stored hashed and can only be shown when they are made.
 */
export async function prepareDemoApp(databasePath: string): Promise<{ clientId: string; clientSecret: string }> {
  const database = await openDatabase(databasePath);
  try {
    const { apps } = createRepositories(database.db, () => new Date());
    const existing = (await apps.list()).find((app) => app.name === DEMO_APP_NAME);
    const { app, clientSecret } = existing
      ? await apps.rotateSecret(existing.id)
      : await apps.create({ name: DEMO_APP_NAME, testMode: true });
    return { clientId: app.clientId, clientSecret };
  } finally {
    await database.close();
  }
}
