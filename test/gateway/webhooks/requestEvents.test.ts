import { expect } from "chai";
import type { WalletTxRecord } from "../../../gateway/transactions/txRecord";
import { transactionView } from "../../../gateway/transactions/txViews";
import { recordRequestEvent } from "../../../gateway/webhooks/requestEvents";
import type { OutboxEntry, WebhookOutbox } from "../../../gateway/webhooks/webhookOutbox";
import type { EndpointSubscription } from "../../../gateway/webhooks/webhookSubscriptions";

const NOW = new Date("2026-11-22T12:00:00.000Z");

/** A wallet request of app "acme" in `status`. */
const request = (status: WalletTxRecord["status"]): WalletTxRecord => ({
  id: "tx-1",
  appId: "acme",
  accountType: "kernel",
  userId: "acme:alice",
  chain: "localhost",
  sender: "0x0000000000000000000000000000000000000001",
  calls: [],
  delegatecall: false,
  idempotencyKey: undefined,
  requestHash: "h",
  status,
  bundleId: undefined,
  transactionHash: undefined,
  blockNumber: undefined,
  success: undefined,
  error: undefined,
  attempts: 1,
  nextAttemptAt: NOW.toISOString(),
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  settledGas: undefined,
  spentGas: 0n,
  userOp: undefined,
  userOpHash: "0x11",
});

/** An outbox in memory: the endpoints and rank it answers, the entries recorded, and every read made. */
function memoryOutbox(endpoints: EndpointSubscription[], reached?: number) {
  const recorded: OutboxEntry[] = [];
  const reads: string[] = [];
  const outbox: WebhookOutbox = {
    subscriptions: async (appId) => {
      reads.push("subscriptions");
      return endpoints.filter((endpoint) => endpoint.appId === appId);
    },
    subscription: async (id) => endpoints.find((endpoint) => endpoint.id === id),
    reachedRank: async () => {
      reads.push("reachedRank");
      return reached;
    },
    record: async (entry) => void recorded.push(entry),
  };
  return { outbox, recorded, reads };
}

const endpoint = (id: string, events: string[] = [], status: "enabled" | "disabled" = "enabled") =>
  ({ id, appId: "acme", events, status }) as const;

describe("webhooks: the event a request's change of state records (the rules, without a database)", () => {
  it("records the event, its body the request's GET view now, owed to each endpoint taking it, held where disabled", async () => {
    const { outbox, recorded } = memoryOutbox([
      endpoint("all"),
      endpoint("final-only", ["transaction.included"]),
      endpoint("paused", [], "disabled"),
      { ...endpoint("rival"), appId: "rival" },
    ]);
    await recordRequestEvent(outbox, request("submitted"), NOW);
    expect(recorded).to.have.length(1);
    const { event, deliveries } = recorded[0]!;
    expect(event).to.deep.include({ appId: "acme", txId: "tx-1", type: "transaction.submitted", rank: 1, at: NOW });
    expect(JSON.parse(event.body)).to.deep.equal({
      type: "transaction.submitted",
      timestamp: NOW.toISOString(),
      data: JSON.parse(JSON.stringify(transactionView(request("submitted")))),
    });
    expect(deliveries.map((d) => [d.endpointId, d.status])).to.deep.equal([
      ["all", "pending"],
      ["paused", "held"],
    ]);
  });

  it("records nothing for a queued request, without reading anything", async () => {
    const { outbox, recorded, reads } = memoryOutbox([endpoint("all")]);
    await recordRequestEvent(outbox, request("queued"), NOW);
    expect(recorded).to.deep.equal([]);
    expect(reads).to.deep.equal([]);
  });

  it("records nothing when no endpoint of the app takes it: none, or only types this version does not know", async () => {
    const { outbox, recorded, reads } = memoryOutbox([endpoint("future", ["transaction.cancelled"])]);
    await recordRequestEvent(outbox, request("included"), NOW);
    expect(recorded).to.deep.equal([]);
    expect(reads).to.deep.equal(["subscriptions"]);
  });

  it("records only an event that moves the request further than those recorded: never a step back or a repeat", async () => {
    for (const [status, reached, expected] of [
      ["submitted", 1, 0],
      ["submitted", 2, 0],
      ["included", 2, 0],
      ["failed", 1, 1],
    ] as const) {
      const { outbox, recorded } = memoryOutbox([endpoint("all")], reached);
      await recordRequestEvent(outbox, request(status), NOW);
      expect(recorded, `${status} after rank ${reached}`).to.have.length(expected);
    }
  });
});
