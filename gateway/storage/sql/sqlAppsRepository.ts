import type { Kysely, Selectable } from "kysely";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { type PolicySettings, parsePolicySettings, serializePolicySettings } from "../../config/policySettings";
import { App, AppName, type AppStatus, type AppWithSecret, newAppId, newClientId } from "../../auth/app";
import { type AppsRepository } from "../../auth/appsRepository";
import { generateClientSecret, hashClientSecret, upgradedHash, verifyClientSecret } from "../../auth/clientSecret";
import { NotFoundError } from "../errors";
import type { AppsTable, DatabaseSchema } from "../schema";

// Conventions 4: rows read back are parsed, so a hand-edited or corrupt row fails loudly instead of leaking on.
const AppRow = z
  .object({
    id: z.string(),
    name: z.string(),
    client_id: z.string(),
    secret_hash: z.string(),
    status: z.string(),
    test_mode: z.union([z.literal(0), z.literal(1)]),
    delegatecall_granted: z.union([z.literal(0), z.literal(1)]),
    safe_config_granted: z.union([z.literal(0), z.literal(1)]),
    policy: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    secret_rotated_at: z.string(),
    secret_generation: z.number(),
  })
  .transform((row) => ({
    id: row.id,
    name: row.name,
    clientId: row.client_id,
    status: row.status,
    testMode: row.test_mode === 1,
    delegatecallGranted: row.delegatecall_granted === 1,
    safeConfigGranted: row.safe_config_granted === 1,
    policy: parsePolicySettings(row.policy),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    secretRotatedAt: row.secret_rotated_at,
    secretGeneration: row.secret_generation,
  }))
  .pipe(App);

/**
 * Apps parsed before, by every column but the secret's hash (which an App does not carry): the bearer check reads
 * the app on every request, and a row changes seldom; parsing it (its policy through zod) cost more than reading it.
 * Frozen, as each is handed to every request that reads the same row.
 */
const parsedApps = new LRUCache<string, App>({ max: 1024 });

const toApp = (row: Selectable<AppsTable>): App => {
  const { secret_hash: _hash, ...columns } = row;
  const key = JSON.stringify(columns);
  let app = parsedApps.get(key);
  if (app === undefined) {
    app = deepFreeze(AppRow.parse(row));
    parsedApps.set(key, app);
  }
  return app;
};

/** `value` and everything in it made read-only. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** AppsRepository over SQLite and PostgreSQL; `clock` stamps every write so tests control time. */
export class SqlAppsRepository implements AppsRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async create(input: { name: string; testMode?: boolean }): Promise<AppWithSecret> {
    const name = AppName.parse(input.name);
    const clientSecret = generateClientSecret();
    const secretHash = hashClientSecret(clientSecret);
    const now = this.clock().toISOString();
    const row = await this.db
      .insertInto("apps")
      .values({
        id: newAppId(),
        name,
        client_id: newClientId(),
        secret_hash: secretHash,
        status: "active",
        test_mode: input.testMode ? 1 : 0,
        delegatecall_granted: 0,
        safe_config_granted: 0,
        policy: null,
        created_at: now,
        updated_at: now,
        secret_rotated_at: now,
        secret_generation: 0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { app: toApp(row), clientSecret };
  }

  async findByClientId(clientId: string): Promise<App | undefined> {
    const row = await this.db.selectFrom("apps").selectAll().where("client_id", "=", clientId).executeTakeFirst();
    return row && toApp(row);
  }

  async findById(id: string): Promise<App | undefined> {
    const row = await this.db.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toApp(row);
  }

  async list(): Promise<App[]> {
    const rows = await this.db.selectFrom("apps").selectAll().orderBy("created_at").orderBy("id").execute();
    return rows.map(toApp);
  }

  async setStatus(id: string, status: AppStatus): Promise<App> {
    return this.update(id, { status });
  }

  async setTestMode(id: string, on: boolean): Promise<App> {
    return this.update(id, { test_mode: on ? 1 : 0 });
  }

  async setDelegatecallGrant(id: string, granted: boolean): Promise<App> {
    return this.update(id, { delegatecall_granted: granted ? 1 : 0 });
  }

  async setSafeConfigGrant(id: string, granted: boolean): Promise<App> {
    return this.update(id, { safe_config_granted: granted ? 1 : 0 });
  }

  async setPolicy(id: string, settings: PolicySettings): Promise<App> {
    const empty = Object.keys(settings).length === 0;
    return this.update(id, { policy: empty ? null : serializePolicySettings(settings) });
  }

  async rotateSecret(id: string): Promise<AppWithSecret> {
    const clientSecret = generateClientSecret();
    const secretHash = hashClientSecret(clientSecret);
    const now = this.clock().toISOString();
    const row = await this.db
      .updateTable("apps")
      .set((eb) => ({
        secret_hash: secretHash,
        secret_rotated_at: now,
        updated_at: now,
        secret_generation: eb("secret_generation", "+", 1),
      }))
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFoundError("app", id);
    return { app: toApp(row), clientSecret };
  }

  async verifySecret(clientId: string, secret: string): Promise<App | undefined> {
    const row = await this.db.selectFrom("apps").selectAll().where("client_id", "=", clientId).executeTakeFirst();
    // Always hash and compare (against a dummy when the client id is unknown) so timing does not reveal client ids.
    const matches = await verifyClientSecret(secret, row?.secret_hash);
    if (!row || !matches) return undefined;
    const upgraded = upgradedHash(secret, row.secret_hash);
    if (upgraded !== undefined) {
      // Replaced unless a rotation replaced it first.
      await this.db
        .updateTable("apps")
        .set({ secret_hash: upgraded })
        .where("id", "=", row.id)
        .where("secret_hash", "=", row.secret_hash)
        .execute();
    }
    const app = toApp(row);
    return app.status === "active" ? app : undefined;
  }

  /** Updates one row (stamping updated_at unless given) and returns it, or throws NotFoundError if there is none. */
  private async update(id: string, changes: Partial<Omit<AppsTable, "id" | "client_id" | "created_at">>): Promise<App> {
    const row = await this.db
      .updateTable("apps")
      .set({ updated_at: this.clock().toISOString(), ...changes })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFoundError("app", id);
    return toApp(row);
  }
}
