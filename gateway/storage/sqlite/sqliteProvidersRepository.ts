import type { Kysely } from "kysely";
import type { ProviderRegistration } from "../../auth/userProof";
import { NotFoundError } from "../errors";
import {
  ProviderName,
  ProviderTakenError,
  ProviderVerification,
  type ProvidersRepository,
} from "../providersRepository";
import type { AppProvidersTable, DatabaseSchema } from "../schema";

const toRegistration = (row: AppProvidersTable): ProviderRegistration => {
  const verification = ProviderVerification.parse(JSON.parse(row.verification));
  return { provider: row.provider, appId: row.app_id, ...verification };
};

/** ProvidersRepository over SQLite. */
export class SqliteProvidersRepository implements ProvidersRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async register(appId: string, provider: string, verification: ProviderVerification): Promise<ProviderRegistration> {
    const name = ProviderName.parse(provider);
    const parsed = ProviderVerification.parse(verification);
    return this.db.transaction().execute(async (tx) => {
      const app = await tx.selectFrom("apps").select("id").where("id", "=", appId).executeTakeFirst();
      if (!app) throw new NotFoundError("app", appId);
      const taken = await tx
        .selectFrom("app_providers")
        .select("app_id")
        .where("provider", "=", name)
        .executeTakeFirst();
      if (taken) throw new ProviderTakenError(`the provider ${name} is already registered`);
      const row = {
        provider: name,
        app_id: appId,
        verification: JSON.stringify(parsed),
        created_at: this.clock().toISOString(),
      };
      await tx.insertInto("app_providers").values(row).execute();
      return toRegistration(row);
    });
  }

  async find(provider: string): Promise<ProviderRegistration | undefined> {
    const row = await this.db
      .selectFrom("app_providers")
      .selectAll()
      .where("provider", "=", provider)
      .executeTakeFirst();
    return row && toRegistration(row);
  }

  async list(): Promise<{ provider: string; appId: string; kind: string; createdAt: string }[]> {
    const rows = await this.db.selectFrom("app_providers").selectAll().orderBy("provider").execute();
    return rows.map((row) => ({
      provider: row.provider,
      appId: row.app_id,
      kind: toRegistration(row).key.kind,
      createdAt: row.created_at,
    }));
  }

  async remove(provider: string): Promise<boolean> {
    const result = await this.db.deleteFrom("app_providers").where("provider", "=", provider).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
