import { expect } from "chai";
import type { OpenTestDatabase } from "../builders";
import { BUDGET_EXHAUSTED_BY_RETRIES, chargedSafeOutcome } from "../../../../gateway/safe/relay/spentGas";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { type SpendLimit, SpendLimitExceededError } from "../../../../gateway/transactions/spendLimits";
import { type NewSafeTx, isSafeRecord } from "../../../../gateway/transactions/txRecord";
import type { TxOutcome } from "../../../../gateway/transactions/txOutcome";

const RESERVED = 6_000_000n;
const BUDGET: SpendLimit = { rule: "budget", limitGas: 100_000_000n, periodSeconds: 3600 };
const LATER = new Date("2030-01-01T00:00:00Z");
const REVERTED: TxOutcome = {
  status: "queued",
  nextAttemptAt: LATER,
  error: { code: "RELAYED_TX_REVERTED", message: "reverted" },
};

async function fresh(open: OpenTestDatabase) {
  const database = await open();
  const repos = createRepositories(database.db, () => new Date());
  const { app } = await repos.apps.create({ name: "acme" });
  const safeTx = (): NewSafeTx => ({
    appId: app.id,
    accountType: "safe",
    chain: "localhost",
    sender: "0x00000000000000000000000000000000000000aa",
    calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 0n, data: "0x" }],
    delegatecall: false,
    idempotencyKey: undefined,
    requestHash: "h",
    safeAction: "custom",
    reservedGas: RESERVED,
  });
  /** What the app's requests count for in its budget now, read from a refusal of a request that cannot fit. */
  const used = async () => {
    const error = await repos.transactions.create({ ...safeTx(), reservedGas: BUDGET.limitGas }, [BUDGET]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(SpendLimitExceededError);
    return (error as SpendLimitExceededError).usedGas;
  };
  /** Settles one mined relay of `id` as the bundler does, with the request as stored. */
  const mined = async (id: string, outcome: TxOutcome, gasUsed: bigint) => {
    const stored = await repos.transactions.find(id);
    if (!stored || !isSafeRecord(stored)) return expect.fail(`${id} is no stored Safe request`);
    const charged = chargedSafeOutcome(stored, outcome, gasUsed);
    await repos.transactions.settle(id, charged);
    return charged;
  };
  return { database, repos, safeTx, used, mined };
}

/** How the gas a Safe request's reverted relays burned is charged, whatever the database, on a fresh migrated database per test from `open` (see the settings suite). */
export function spentGasContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: gas burned by a Safe request's reverted relays (${dialect})`, () => {
    it("charges every reverted relay, counts the larger of reservation and burned gas, and stops retrying once it is spent", async () => {
      const { database, repos, safeTx, used, mined } = await fresh(open);
      const { record } = await repos.transactions.create(safeTx(), [BUDGET]);
      const first = await mined(record.id, REVERTED, 4_000_000n);
      expect(first).to.not.have.property("closeWhenDue");
      expect((await repos.transactions.find(record.id))!.spentGas).to.equal(4_000_000n);
      expect(await used()).to.equal(RESERVED);

      // The second reverted relay takes the burned gas past the reservation: no third send, the nonce is cancelled.
      const second = await mined(record.id, REVERTED, 4_000_000n);
      expect(second).to.deep.include({ closeWhenDue: true });
      expect(second.error?.code).to.equal(BUDGET_EXHAUSTED_BY_RETRIES);
      expect(await used()).to.equal(8_000_000n);

      const cancelled = await mined(record.id, { status: "failed", error: second.error! }, 50_000n);
      expect(cancelled.status).to.equal("failed");
      const stored = (await repos.transactions.find(record.id))!;
      expect([stored.status, stored.error?.code]).to.deep.equal(["failed", BUDGET_EXHAUSTED_BY_RETRIES]);
      expect([stored.spentGas, stored.settledGas]).to.deep.equal([8_050_000n, 8_050_000n]);
      expect(await used()).to.equal(8_050_000n);
      await database.close();
    });

    it("settles a Safe request that ran on its first relay to that relay's gas, counted once", async () => {
      const { database, repos, safeTx, mined } = await fresh(open);
      const { record } = await repos.transactions.create(safeTx(), [BUDGET]);
      await mined(record.id, { status: "included", success: true }, 90_000n);
      const stored = (await repos.transactions.find(record.id))!;
      expect([stored.spentGas, stored.settledGas]).to.deep.equal([90_000n, 90_000n]);
      await database.close();
    });
  });
}
