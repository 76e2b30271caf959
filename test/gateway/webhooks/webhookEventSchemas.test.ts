import { expect } from "chai";
import type { SafeTxRecord, TxRecord, WalletTxRecord } from "../../../gateway/transactions/txRecord";
import { newWebhookSecret } from "../../../gateway/webhooks/webhookEndpoint";
import { recordRequestEvent } from "../../../gateway/webhooks/requestEvents";
import { recordTestEvent } from "../../../gateway/webhooks/testEvents";
import { SignedHeaders, WEBHOOK_EVENT_BODIES, WebhookEventBody } from "../../../gateway/webhooks/webhookEvents.schema";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "../../../gateway/webhooks/webhookEvents";
import type { OutboxEntry, WebhookOutbox } from "../../../gateway/webhooks/webhookOutbox";
import { signedHeaders } from "../../../gateway/webhooks/webhookSigning";

const NOW = new Date("2026-11-22T12:00:00.000Z");
const STATES = ["submitted", "included", "failed"] as const;

/** What every stored request carries, in `status`, with the outcome fields that state has. */
const lifecycle = (status: (typeof STATES)[number]) => ({
  id: `tx-${status}`,
  appId: "acme",
  chain: "localhost",
  sender: "0x0000000000000000000000000000000000000001",
  calls: [],
  delegatecall: false,
  idempotencyKey: undefined,
  requestHash: "h",
  status,
  bundleId: undefined,
  transactionHash: status === "submitted" ? undefined : "0x" + "ab".repeat(32),
  blockNumber: status === "included" ? 42 : undefined,
  success: status === "included" ? false : undefined,
  error: status === "submitted" ? undefined : { code: "EXECUTION_REVERTED", message: "reverted: no" },
  attempts: 1,
  nextAttemptAt: NOW.toISOString(),
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  settledGas: undefined,
  spentGas: 0n,
});

const walletRequest = (status: (typeof STATES)[number]): WalletTxRecord => ({
  ...lifecycle(status),
  accountType: "kernel",
  userId: "acme:alice",
  userOp: undefined,
  userOpHash: "0x11",
});

const safeRequest = (status: (typeof STATES)[number]): SafeTxRecord => ({
  ...lifecycle(status),
  accountType: "safe",
  safeAction: "transfer",
  safeTxHash: "0x22",
  safeNonce: 3,
});

/** An outbox in memory with one endpoint of app "acme" taking every event: what the builders record, kept. */
function memoryOutbox() {
  const recorded: OutboxEntry[] = [];
  const subscription = { id: "ep_1", appId: "acme", events: [], status: "enabled" } as const;
  const outbox: WebhookOutbox = {
    subscriptions: async () => [subscription],
    subscription: async () => subscription,
    reachedRank: async () => undefined,
    record: async (entry) => void recorded.push(entry),
  };
  return { outbox, recorded };
}

/** The body the service builds for a request's new state, as its endpoints are sent it. */
async function builtBody(record: TxRecord): Promise<{ type: string; body: unknown }> {
  const { outbox, recorded } = memoryOutbox();
  await recordRequestEvent(outbox, record, NOW);
  const { event } = recorded[0]!;
  return { type: event.type, body: JSON.parse(event.body) };
}

describe("webhooks: the documented event schemas are the bodies the service builds", () => {
  it("each request event's built body parses with its type's schema, losing no field", async () => {
    const seen = new Set<string>();
    for (const record of [...STATES.map(walletRequest), ...STATES.map(safeRequest)]) {
      const { type, body } = await builtBody(record);
      const schema = WEBHOOK_EVENT_BODIES[type as keyof typeof WEBHOOK_EVENT_BODIES];
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${type}: ${parsed.error?.message}`).to.be.true;
      // zod drops a field it does not know: a field the builder adds and the schema lacks fails here.
      expect(parsed.data, type).to.deep.equal(body);
      expect(WebhookEventBody.parse(body), type).to.deep.equal(body);
      seen.add(type);
    }
    expect([...seen].sort()).to.deep.equal([...WEBHOOK_EVENT_TYPES].sort());
  });

  it("the webhook.test event's built body parses with its schema", async () => {
    const { outbox, recorded } = memoryOutbox();
    await recordTestEvent({ withOutbox: (work) => work(outbox, NOW) }, "ep_1");
    const body: unknown = JSON.parse(recorded[0]!.event.body);
    expect(WEBHOOK_EVENT_BODIES[TEST_EVENT_TYPE].parse(body)).to.deep.equal(body);
    expect(WebhookEventBody.parse(body)).to.deep.equal(body);
  });

  it("the signature headers of an attempt, one secret or two during a rotation, parse with their schema", () => {
    for (const secrets of [[newWebhookSecret()], [newWebhookSecret(), newWebhookSecret()]]) {
      const headers = signedHeaders(secrets, "msg_" + "0f".repeat(16), '{"type":"webhook.test"}', NOW);
      expect(SignedHeaders.parse(headers)).to.deep.equal(headers);
    }
  });

  it("a body whose type names another state than its data is refused: a receiver narrowing by type is not misled", async () => {
    const { body } = await builtBody(walletRequest("failed"));
    const forged = { ...(body as object), type: "transaction.included" };
    expect(WebhookEventBody.safeParse(forged).success).to.be.false;
    expect(WEBHOOK_EVENT_BODIES["transaction.included"].safeParse(forged).success).to.be.false;
    // A Safe request's record is not a wallet request's event either.
    const { body: safeBody } = await builtBody(safeRequest("included"));
    expect(WebhookEventBody.safeParse({ ...(safeBody as object), type: "transaction.included" }).success).to.be.false;
  });
});
