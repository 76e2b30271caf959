import type { Kysely, Transaction } from "kysely";
import { SecretsKeyError, type SecretsKeyring } from "../../crypto/secretsKeyring";
import type { DatabaseSchema } from "../schema";
import { openEndpointSecret, sealEndpointSecret } from "./webhookRows";

/**
 * Seals again, in `trx`, under the keyring's current key every endpoint secret (and rotated-out secret) sealed under
 * another it opens; how many endpoints. One that opens under neither key is left: a claim of it then finds out.
 */
export async function resealEndpointSecrets(
  trx: Transaction<DatabaseSchema>,
  keyring: SecretsKeyring | undefined,
): Promise<number> {
  if (!keyring) return 0;
  const rows = await trx
    .selectFrom("webhook_endpoints")
    .select(["id", "secret_sealed", "previous_secret_sealed"])
    .execute();
  /** `sealed` sealed again under the current key, or undefined if it is already, or opens under neither key. */
  const reseal = (id: string, sealed: string): string | undefined => {
    if (keyring.keyIdOf(sealed) === keyring.currentKeyId) return undefined;
    try {
      return sealEndpointSecret(keyring, id, openEndpointSecret(keyring, id, sealed));
    } catch (error) {
      // Left as it is: a claim of it leaves it for a process whose key opens it.
      if (error instanceof SecretsKeyError) return undefined;
      throw error;
    }
  };
  let resealed = 0;
  for (const row of rows) {
    const current = reseal(row.id, row.secret_sealed);
    const previous = row.previous_secret_sealed === null ? undefined : reseal(row.id, row.previous_secret_sealed);
    if (current === undefined && previous === undefined) continue;
    await trx
      .updateTable("webhook_endpoints")
      .set({
        ...(current ? { secret_sealed: current } : {}),
        ...(previous ? { previous_secret_sealed: previous } : {}),
      })
      .where("id", "=", row.id)
      .execute();
    resealed++;
  }
  return resealed;
}

/**
 * Deletes deliveries delivered or given up before `before` (their attempts go with them, by foreign key), then events
 * recorded before it that nothing is owed for; `batch` rows a statement, so none holds the write lock for long.
 * Returns how many deliveries.
 */
export async function pruneFinishedDeliveries(
  db: Kysely<DatabaseSchema>,
  before: Date,
  batch: number,
): Promise<number> {
  const cutoff = before.toISOString();
  let pruned = 0;
  // In batches, so no one statement holds the write lock for long.
  for (;;) {
    const result = await db
      .deleteFrom("webhook_deliveries")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("status", "in", ["delivered", "failed"])
          .where("created_at", "<", cutoff)
          .limit(batch),
      )
      .executeTakeFirst();
    pruned += Number(result.numDeletedRows);
    if (Number(result.numDeletedRows) < batch) break;
  }
  for (;;) {
    const result = await db
      .deleteFrom("webhook_events")
      .where("seq", "in", (eb) =>
        eb
          .selectFrom("webhook_events as ev")
          .select("ev.seq")
          .where("ev.created_at", "<", cutoff)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom("webhook_deliveries as d").select("d.id").whereRef("d.event_seq", "=", "ev.seq"))),
          )
          .limit(batch),
      )
      .executeTakeFirst();
    if (Number(result.numDeletedRows) < batch) break;
  }
  return pruned;
}
