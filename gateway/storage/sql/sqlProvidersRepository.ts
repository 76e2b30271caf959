import type { Kysely } from "kysely";
import type { ProviderRegistration } from "../../identity/providerRegistration";
import { SecretsKeyError, type SecretsKeyring } from "../../crypto/secretsKeyring";
import { NotFoundError } from "../errors";
import {
  ProviderName,
  type ProviderSummary,
  ProviderVerification,
  type RegisteredName,
  registrationVerification,
} from "../../identity/providerRegistration";
import { type ProvidersRepository, type ResealedSecrets } from "../../identity/providersRepository";
import { registrationRefusal } from "../../identity/providerNames";
import { dropOldRowVersions } from "./dialect/maintenance";
import { lockKeys } from "./dialect/keyLocks";
import type { DatabaseSchema } from "../schema";
import {
  isOutdated,
  openSecret,
  sealSecret,
  storedClaims,
  storedKind,
  storedSecret,
  toRegistration,
  verificationJson,
} from "./providerRows";

/** ProvidersRepository over SQLite and PostgreSQL; HS256 secrets sealed with `keyring` (none: such providers are refused). */
export class SqlProvidersRepository implements ProvidersRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
    private readonly keyring?: SecretsKeyring,
  ) {}

  async register(
    appId: string,
    provider: string,
    verification: ProviderVerification,
    options: { allowInsecure?: boolean } = {},
  ): Promise<ProviderRegistration> {
    const name = ProviderName.parse(provider);
    const parsed = registrationVerification(options.allowInsecure ?? false).parse(verification);
    // Sealed before anything is written: without a key, an HS256 registration stores nothing.
    const verificationText = verificationJson(parsed, this.keyring, name, appId);
    return this.db.transaction().execute(async (tx) => {
      // PostgreSQL: two instances registering one name at once take turns, so the second sees the first's row.
      await lockKeys(tx, [`provider:${name}`]);
      const app = await tx.selectFrom("apps").select("id").where("id", "=", appId).executeTakeFirst();
      if (!app) throw new NotFoundError("app", appId);
      const taken = await tx
        .selectFrom("app_providers")
        .select(["app_id", "disabled_at", "verification"])
        .where("provider", "=", name)
        .executeTakeFirst();
      const refusal = registrationRefusal(
        name,
        appId,
        taken && { appId: taken.app_id, enabled: taken.disabled_at === null, outdated: () => isOutdated(taken) },
      );
      if (refusal) throw refusal;
      if (parsed.key.kind === "hs256") await this.checkSameKey(tx, name);
      if (taken) {
        const row = await tx
          .updateTable("app_providers")
          .set({ verification: verificationText, disabled_at: null })
          .where("provider", "=", name)
          .returningAll()
          .executeTakeFirstOrThrow();
        return toRegistration(row, this.keyring);
      }
      const row = {
        provider: name,
        app_id: appId,
        verification: verificationText,
        created_at: this.clock().toISOString(),
        disabled_at: null,
      };
      await tx.insertInto("app_providers").values(row).execute();
      return toRegistration(row, this.keyring);
    });
  }

  /**
   * Refuses to seal a secret under a key the stored secrets were not sealed under (an admin CLI run with another
   * SECRETS_KEY than the service's): the service could not open it, and its next start-up would stop on it.
   */
  private async checkSameKey(tx: Kysely<DatabaseSchema>, except: string): Promise<void> {
    const rows = await tx.selectFrom("app_providers").select(["provider", "app_id", "verification"]).execute();
    for (const row of rows) {
      const secret = storedSecret(row);
      if (row.provider === except || secret.state !== "sealed") continue;
      try {
        openSecret(this.keyring, secret.sealed, row.provider, row.app_id);
      } catch (error) {
        if (!(error instanceof SecretsKeyError)) throw error;
        throw new SecretsKeyError(
          `SECRETS_KEY does not open the secrets already stored (${error.message}): use the service's SECRETS_KEY`,
        );
      }
    }
  }

  async find(provider: string): Promise<ProviderRegistration | undefined> {
    const row = await this.db
      .selectFrom("app_providers")
      .selectAll()
      .where("provider", "=", provider)
      .executeTakeFirst();
    return row && toRegistration(row, this.keyring);
  }

  async list(): Promise<ProviderSummary[]> {
    const rows = await this.db.selectFrom("app_providers").selectAll().orderBy("provider").execute();
    // Nothing is opened: listing needs no key.
    return rows.map((row) => {
      const { issuer, audience } = storedClaims(row);
      return {
        provider: row.provider,
        appId: row.app_id,
        kind: storedKind(row),
        ...(issuer === undefined ? {} : { issuer }),
        ...(audience === undefined ? {} : { audience }),
        createdAt: row.created_at,
        ...(row.disabled_at === null ? {} : { disabledAt: row.disabled_at }),
        outdated: isOutdated(row),
      };
    });
  }

  async registeredNames(): Promise<RegisteredName[]> {
    const rows = await this.db
      .selectFrom("app_providers")
      .select(["provider", "disabled_at"])
      .orderBy("provider")
      .execute();
    return rows.map((row) => ({ provider: row.provider, enabled: row.disabled_at === null }));
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

  async resealSecrets(): Promise<ResealedSecrets> {
    const counts = await this.resealInTransaction();
    if (counts.sealed + counts.resealed > 0) await this.dropOldVersions();
    return counts;
  }

  /** What can be done so the rows as they were (plain text, or sealed under the old key) leave no copy behind. */
  private async dropOldVersions(): Promise<void> {
    await dropOldRowVersions(this.db, "app_providers");
  }

  private async resealInTransaction(): Promise<ResealedSecrets> {
    return this.db.transaction().execute(async (tx) => {
      const rows = await tx.selectFrom("app_providers").select(["provider", "app_id", "verification"]).execute();
      const withSecrets = rows.filter((row) => storedSecret(row).state !== "none");
      const keyring = this.keyring;
      if (withSecrets.length > 0 && !keyring) {
        const names = withSecrets.map((row) => row.provider).join(", ");
        throw new SecretsKeyError(
          `HS256 secrets are stored for provider ${names}, and are kept only sealed: set SECRETS_KEY (docs/auth.md, "Provider secrets at rest")`,
        );
      }
      const counts = { sealed: 0, resealed: 0 };
      for (const row of withSecrets) {
        const secret = storedSecret(row);
        if (secret.state === "none" || !keyring) continue;
        // Every sealed secret is opened, under the current key too: one that does not open stops the start-up here,
        // naming its provider, rather than failing that provider's proofs later.
        const plain =
          secret.state === "plain" ? secret.secret : openSecret(keyring, secret.sealed, row.provider, row.app_id);
        if (secret.state === "sealed" && keyring.keyIdOf(secret.sealed) === keyring.currentKeyId) continue;
        const stored = JSON.parse(row.verification) as { key: Record<string, unknown> };
        const { secret: _plain, sealedSecret: _sealed, ...key } = stored.key;
        const sealedSecret = sealSecret(keyring, plain, row.provider, row.app_id);
        await tx
          .updateTable("app_providers")
          .set({ verification: JSON.stringify({ ...stored, key: { ...key, sealedSecret } }) })
          .where("provider", "=", row.provider)
          .execute();
        counts[secret.state === "plain" ? "sealed" : "resealed"]++;
      }
      return counts;
    });
  }
}
