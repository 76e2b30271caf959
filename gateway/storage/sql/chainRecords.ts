import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../schema";

/**
 * Deletes every record bound to the state of `chain`: its requests and their UserOperations, the relayer's bundles,
 * its Safes, dust orders, spend windows, and the webhook events (with their deliveries and attempts) about its
 * requests. Apps, providers, webhook endpoints, token lists and the signature audit log stay: they hold no chain state
 * (and the audit log's chain of hashes must not lose rows). For a development chain started anew: its records must not
 * outlive the chain they describe (a Safe with no code, a transaction hash no block holds). One database transaction;
 * answers how many of each kind were deleted.
 */
export async function clearChainRecords(
  db: Kysely<DatabaseSchema>,
  chain: string,
): Promise<{ transactions: number; safes: number; bundles: number; dustOrders: number; webhookEvents: number }> {
  return db.transaction().execute(async (trx) => {
    const requestIds = trx.selectFrom("transactions").select("id").where("chain", "=", chain);
    const eventSeqs = trx.selectFrom("webhook_events").select("seq").where("tx_id", "in", requestIds);
    const deliveryIds = trx.selectFrom("webhook_deliveries").select("id").where("event_seq", "in", eventSeqs);
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", deliveryIds).execute();
    await trx.deleteFrom("webhook_deliveries").where("event_seq", "in", eventSeqs).execute();
    const events = await trx.deleteFrom("webhook_events").where("tx_id", "in", requestIds).executeTakeFirst();
    const transactions = await trx.deleteFrom("transactions").where("chain", "=", chain).executeTakeFirst();
    const bundles = await trx.deleteFrom("bundles").where("chain", "=", chain).executeTakeFirst();
    const safes = await trx.deleteFrom("safes").where("chain", "=", chain).executeTakeFirst();
    const dustOrders = await trx.deleteFrom("dust_orders").where("chain", "=", chain).executeTakeFirst();
    await trx.deleteFrom("spend_buckets").where("chain", "=", chain).execute();
    return {
      transactions: Number(transactions.numDeletedRows),
      safes: Number(safes.numDeletedRows),
      bundles: Number(bundles.numDeletedRows),
      dustOrders: Number(dustOrders.numDeletedRows),
      webhookEvents: Number(events.numDeletedRows),
    };
  });
}
