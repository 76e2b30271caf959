import type { Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import type { BuiltSafeTx, BuiltUserOp } from "../../../../gateway/transactions/builtOp";
import type { NewBundle } from "../../../../gateway/transactions/bundle";
import type { NewSafeTx, NewWalletTx } from "../../../../gateway/transactions/txRecord";
import type { AttemptResult, ClaimedDelivery } from "../../../../gateway/webhooks/webhookDelivery";
import { newWebhookSecret, type WebhookEndpoint } from "../../../../gateway/webhooks/webhookEndpoint";
import type { WebhookEventType } from "../../../../gateway/webhooks/webhookEvents";
import { manualClock, type ManualClock, type OpenTestDatabase, testKeyring } from "../builders";

/** How long a claim holds in these suites. */
export const CLAIM_MS = 30_000;
/** Far more endpoints than any test adds, where the limit is not what is tested. */
export const NO_LIMIT = 100;

const WORD = `0x${"00".repeat(32)}`;

/** A store with webhook secrets sealed under the test key, a manual clock, and two apps that must not see each other. */
export interface WebhookStore {
  readonly database: Database;
  readonly db: Database["db"];
  readonly repos: Repositories;
  readonly clock: ManualClock;
  readonly appId: string;
  readonly otherAppId: string;
}

/** Opens a fresh store with the apps "acme" and "rival"; close it with `store.database.close()`. */
export async function openWebhookStore(open: OpenTestDatabase): Promise<WebhookStore> {
  const database = await open();
  const clock = manualClock("2026-11-22T12:00:00.000Z");
  const repos = createRepositories(database.db, clock.now, { secrets: testKeyring() });
  const appId = (await repos.apps.create({ name: "acme" })).app.id;
  const otherAppId = (await repos.apps.create({ name: "rival" })).app.id;
  return { database, db: database.db, repos, clock, appId, otherAppId };
}

/** Registers an endpoint for `appId` with a fresh secret; the secret is returned, as it is shown once. */
export async function addEndpoint(
  repos: Repositories,
  appId: string,
  events: readonly WebhookEventType[] = [],
  url = "https://hooks.example.com/idwallet",
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await repos.webhooks.addEndpoint({ appId, url, events, secret }, NO_LIMIT);
  return { endpoint, secret };
}

/** A wallet request of `appId` from its own sender (`n` tells senders apart). */
export const walletTx = (appId: string, n = 1): NewWalletTx => ({
  appId,
  accountType: "kernel",
  userId: "acme:alice",
  chain: "localhost",
  sender: `0x${n.toString(16).padStart(40, "0")}`,
  calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 1n, data: "0x" }],
  delegatecall: false,
  idempotencyKey: undefined,
  requestHash: "h",
});

/** A Safe transfer of `appId`. */
export const safeTx = (appId: string): NewSafeTx => ({
  ...walletTx(appId, 0x5afe),
  accountType: "safe",
  safeAction: "transfer",
});

/** The signed UserOperation of a wallet request, as the worker records it. */
export const userOpOf = (txId: string): BuiltUserOp => ({
  txId,
  userOpHash: `0x${"11".repeat(32)}`,
  userOp: {
    sender: "0x0000000000000000000000000000000000000001",
    nonce: 0n,
    initCode: "0x",
    callData: "0x",
    accountGasLimits: WORD,
    preVerificationGas: 0n,
    gasFees: WORD,
    paymasterAndData: "0x",
    signature: "0x",
  },
});

/** The signed Safe transaction of a Safe request. */
export const safeOpOf = (txId: string): BuiltSafeTx => ({ txId, safeTx: { hash: `0x${"22".repeat(32)}`, nonce: 0 } });

/** A relayer transaction with nonce `nonce`. */
export const bundleOf = (nonce: number): NewBundle => ({
  chain: "localhost",
  relayer: `0x${"11".repeat(20)}`,
  nonce,
  txHash: `0x${nonce.toString(16).padStart(64, "0")}`,
  rawTx: "0x02",
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
});

/** An included outcome, mined in block 7. */
export const included = { status: "included", transactionHash: WORD, blockNumber: 7, success: true } as const;

/** The webhook_events rows, in recording order. */
export const eventRows = (db: Database["db"]) => db.selectFrom("webhook_events").selectAll().orderBy("seq").execute();

/** The webhook_deliveries rows with their event's type, in recording order. */
export const deliveryRows = (db: Database["db"]) =>
  db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as ev", "ev.seq", "d.event_seq")
    .selectAll("d")
    .select(["ev.type", "ev.id as event_id"])
    .orderBy("d.event_seq")
    .orderBy("d.endpoint_id")
    .execute();

/** One delivery's row. */
export const deliveryRow = (db: Database["db"], id: string) =>
  db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Claims every due delivery (up to 50) for CLAIM_MS. */
export const claimAll = (repos: Repositories): Promise<ClaimedDelivery[]> =>
  repos.webhooks.claimDue({ limit: 50, claimMs: CLAIM_MS });

/** A 2xx answer at `at`. */
export const delivered = (at: Date): AttemptResult => ({ outcome: "delivered", statusCode: 204, durationMs: 12, at });

/** A 500 answer at `at`. */
export const serverError = (at: Date): AttemptResult => ({
  outcome: "http_error",
  statusCode: 500,
  error: "HTTP 500",
  durationMs: 30,
  at,
});

/** A test event body, as `webhooks test` makes one. */
export const testBody = (eventId: string, at: Date): string =>
  JSON.stringify({ type: "webhook.test", timestamp: at.toISOString(), data: { eventId } });
