import { expect } from "chai";
import {
  type SpendLimit,
  SpendLimitExceededError,
  checkSpendLimit,
  limitKeyOf,
} from "../../../gateway/transactions/spendLimits";
import {
  type SpendBucket,
  type SpendKey,
  type SpendWindowReader,
  firstMinuteAfter,
  minuteOf,
  spendKeysOf,
  usedGas,
} from "../../../gateway/transactions/spendWindow";
import type { NewSafeTx, NewWalletTx } from "../../../gateway/transactions/txRecord";

const NOW = new Date("2026-03-01T12:00:30Z");
const HOUR: SpendLimit = { rule: "budget", limitGas: 1_000n, periodSeconds: 3_600 };

const wallet: NewWalletTx = {
  appId: "app",
  accountType: "kernel",
  userId: "alice",
  chain: "base",
  sender: "0x0000000000000000000000000000000000000001",
  calls: [],
  delegatecall: false,
  idempotencyKey: undefined,
  requestHash: "h",
  reservedGas: 300n,
};

/** A reader over fixed buckets of one key, recording which windows were read. */
function readerOf(buckets: readonly SpendBucket[], overdueGas = 0n): SpendWindowReader & { read: SpendKey[] } {
  const read: SpendKey[] = [];
  const inWindow = (firstMinute: number) => buckets.filter((b) => b.minute >= firstMinute);
  return {
    read,
    sums: async (key, firstMinute) => {
      read.push(key);
      const window = inWindow(firstMinute);
      return {
        pendingGas: window.reduce((sum, b) => sum + b.pendingGas, 0n),
        settledGas: window.reduce((sum, b) => sum + b.settledGas, 0n),
        overdueGas,
      };
    },
    buckets: async (_key, firstMinute) => inWindow(firstMinute),
  };
}

describe("transactions: spend windows and limits", () => {
  it("counts a request at the start of its minute, under its app's key and then its user id's", () => {
    expect(minuteOf("2026-03-01T12:00:59.999Z")).to.equal(minuteOf(new Date("2026-03-01T12:00:00Z")));
    expect(firstMinuteAfter(NOW)).to.equal(minuteOf(NOW) + 1);
    expect(spendKeysOf(wallet).map((key) => key.scope)).to.deep.equal(["app", "user"]);
    expect(usedGas({ pendingGas: 1n, settledGas: 2n, overdueGas: 4n })).to.equal(7n);
  });

  it("sums a user's daily cap under the user id, a budget and a Safe request's cap under the app", () => {
    const cap: SpendLimit = { ...HOUR, rule: "userDailyCap" };
    expect(limitKeyOf(cap, wallet)).to.deep.include({ scope: "user", userId: "alice" });
    expect(limitKeyOf(HOUR, wallet)).to.deep.include({ scope: "app", userId: "" });
    const { userId: _userId, ...request } = wallet;
    const safe: NewSafeTx = { ...request, accountType: "safe", safeAction: "custom" };
    expect(limitKeyOf(cap, safe)).to.deep.include({ scope: "app" });
  });

  it("admits a request that fits beside the window and the overdue reservations", async () => {
    const first = firstMinuteAfter(new Date(NOW.getTime() - 3_600_000));
    const reader = readerOf([{ minute: first, pendingGas: 400n, settledGas: 0n }], 300n);
    await checkSpendLimit(reader, wallet, HOUR, NOW);
    expect(reader.read).to.have.length(1);
  });

  it("refuses one that does not fit, saying when enough of the window rolls off", async () => {
    const first = firstMinuteAfter(new Date(NOW.getTime() - 3_600_000));
    const buckets = [
      { minute: first - 5, pendingGas: 0n, settledGas: 900n },
      { minute: first + 10, pendingGas: 200n, settledGas: 100n },
      { minute: first + 20, pendingGas: 0n, settledGas: 500n },
    ];
    const refusal = await checkSpendLimit(readerOf(buckets), wallet, HOUR, NOW).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(SpendLimitExceededError);
    const { usedGas: used, requestGas, freesAt } = refusal as SpendLimitExceededError;
    expect([used, requestGas]).to.deep.equal([800n, 300n]);
    expect(freesAt?.getTime()).to.equal((first + 10) * 60_000 + 3_600_000);
  });
});
