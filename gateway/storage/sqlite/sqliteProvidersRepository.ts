import type { Kysely } from "kysely";
import type { ProviderRegistration } from "../../auth/userProof";
import { NotFoundError } from "../errors";
import {
  ProviderName,
  type ProviderSummary,
  ProviderTakenError,
  ProviderVerification,
  type ProvidersRepository,
  StoredProviderVerification,
  registrationVerification,
} from "../providersRepository";
import type { AppProvidersTable, DatabaseSchema } from "../schema";

const toRegistration = (row: AppProvidersTable): ProviderRegistration => {
  // Read as stored: an outdated row still loads (so its name stays taken), and the proof check refuses it.
  const verification = StoredProviderVerification.parse(JSON.parse(row.verification));
  return { provider: row.provider, appId: row.app_id, ...verification, disabled: row.disabled_at !== null };
};

/** Whether a stored verification predates the required issuer, audience and https key set. */
const isOutdated = (json: string): boolean => !ProviderVerification.safeParse(JSON.parse(json)).success;

/** ProvidersRepository over SQLite. */
export class SqliteProvidersRepository implements ProvidersRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async register(
    appId: string,
    provider: string,
    verification: ProviderVerification,
    options: { allowInsecure?: boolean } = {},
  ): Promise<ProviderRegistration> {
    const name = ProviderName.parse(provider);
    const parsed = registrationVerification(options.allowInsecure ?? false).parse(verification);
    return this.db.transaction().execute(async (tx) => {
      const app = await tx.selectFrom("apps").select("id").where("id", "=", appId).executeTakeFirst();
      if (!app) throw new NotFoundError("app", appId);
      const taken = await tx
        .selectFrom("app_providers")
        .select(["app_id", "disabled_at", "verification"])
        .where("provider", "=", name)
        .executeTakeFirst();
      // Design §3: a name once registered is never given to another app, which would control its wallets.
      if (taken && taken.app_id !== appId)
        throw new ProviderTakenError(
          `the provider ${name} was registered by app ${taken.app_id}; a provider name is never given to another app`,
        );
      // The owner may add an outdated registration again (with issuer and audience) without removing it first.
      if (taken && taken.disabled_at === null && !isOutdated(taken.verification))
        throw new ProviderTakenError(`the provider ${name} is already registered`);
      const verificationJson = JSON.stringify(parsed);
      if (taken) {
        const row = await tx
          .updateTable("app_providers")
          .set({ verification: verificationJson, disabled_at: null })
          .where("provider", "=", name)
          .returningAll()
          .executeTakeFirstOrThrow();
        return toRegistration(row);
      }
      const row = {
        provider: name,
        app_id: appId,
        verification: verificationJson,
        created_at: this.clock().toISOString(),
        disabled_at: null,
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

  async list(): Promise<ProviderSummary[]> {
    const rows = await this.db.selectFrom("app_providers").selectAll().orderBy("provider").execute();
    return rows.map((row) => {
      const { key, issuer, audience } = toRegistration(row);
      return {
        provider: row.provider,
        appId: row.app_id,
        kind: key.kind,
        ...(issuer === undefined ? {} : { issuer }),
        ...(audience === undefined ? {} : { audience }),
        createdAt: row.created_at,
        ...(row.disabled_at === null ? {} : { disabledAt: row.disabled_at }),
        outdated: isOutdated(row.verification),
      };
    });
  }

  async names(): Promise<string[]> {
    const rows = await this.db.selectFrom("app_providers").select("provider").orderBy("provider").execute();
    return rows.map((row) => row.provider);
  }

  async remove(provider: string): Promise<boolean> {
    const result = await this.db
      .updateTable("app_providers")
      .set({ disabled_at: this.clock().toISOString() })
      .where("provider", "=", provider)
      .where("disabled_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
