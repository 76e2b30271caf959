import { expect } from "chai";
import { JsonRpcProvider, Wallet, parseUnits } from "ethers";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestToken__factory } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { safeStackClient } from "../helpers/safeStackClient";
import { demoAppToken } from "../helpers/stackClients";
import { databaseLocation } from "../../gateway/config/databaseSetting";

/**
 * The attack: an app makes the relayer's transaction for its Safe payout revert on chain (it holds an approval of
 * the Safe's tokens and pulls them between the estimate and the relay), so the relayer burns gas that, before
 * migration 009, never reached the app's budget: only the cheap cancellation that followed was settled.
 */
describe("Safe relays that revert on chain are charged to the app's budget (e2e: blocks mined by hand)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let appToken: string;

  const client = () => safeStackClient(stack, chain, () => appToken);
  const api: ReturnType<typeof client>["api"] = (...args) => client().api(...args);
  const final: ReturnType<typeof client>["final"] = (...args) => client().final(...args);
  const pendingRelay: ReturnType<typeof client>["pendingRelay"] = (...args) => client().pendingRelay(...args);
  /** The gasUsed of every transaction `from` sent to `to` in blocks `fromBlock`.. (the relayer's sends for a request). */
  const gasOfSends = async (from: string, to: string, fromBlock: number) => {
    let total = 0n;
    const latest = await chain.getBlockNumber();
    for (let n = fromBlock; n <= latest; n++) {
      const block = await chain.getBlock(n, true);
      for (const tx of block!.prefetchedTransactions) {
        if (tx.from.toLowerCase() !== from.toLowerCase() || tx.to?.toLowerCase() !== to.toLowerCase()) continue;
        total += (await chain.getTransactionReceipt(tx.hash))!.gasUsed;
      }
    }
    return total;
  };
  const storedRequest = async (txUuid: string) => {
    const database = await openDatabase(databaseLocation(stack.config));
    try {
      return await createRepositories(database.db, () => new Date()).transactions.find(txUuid);
    } finally {
      await database.close();
    }
  };

  beforeEach(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    appToken = await demoAppToken(stack);
  });
  afterEach(async () => {
    chain.destroy();
    await stack.close();
  });

  it("settles a payout whose relay reverted to the gas of every send: the reverted relay and the cancellation", async () => {
    const created = await api("POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    const safe = String(created.address);
    expect(await final(safe, String(created.txUuid))).to.include({ status: "included" });
    const funder = await chain.getSigner(0);
    const token = await new TestToken__factory(funder).deploy();
    await token.waitForDeployment();
    await (await token.mint(safe, 1000n)).wait();
    // The app's own key, approved by the Safe through the service: it can pull the tokens whenever it likes.
    const appKey = await chain.getSigner(8);
    const approval = await api("POST", `/v1/localhost/account/${safe}/custom`, {
      to: await token.getAddress(),
      data: token.interface.encodeFunctionData("approve", [await appKey.getAddress(), 900n]),
    });
    expect(await final(safe, String(approval.txUuid))).to.include({ status: "included" });

    await chain.send("evm_setAutomine", [false]);
    const payout = await api("POST", `/v1/localhost/account/${safe}/payout/transfer`, {
      token: await token.getAddress(),
      to: Wallet.createRandom().address,
      amount: "500",
    });
    const relayed = await pendingRelay(safe);
    const relayBlock = (await chain.getBlockNumber()) + 1;
    await token.connect(appKey).transferFrom(safe, await appKey.getAddress(), 900n, {
      gasLimit: 200_000n,
      maxPriorityFeePerGas: parseUnits("100", "gwei"),
      maxFeePerGas: parseUnits("200", "gwei"),
    });
    await chain.send("evm_mine", []);
    await chain.send("evm_setAutomine", [true]);
    const reverted = (await chain.getTransactionReceipt(relayed.hash))!;
    expect(reverted.status).to.equal(0);

    const done = await final(safe, String(payout.txUuid));
    expect(done).to.include({ status: "failed" });
    const stored = await storedRequest(String(payout.txUuid));
    const sends = await gasOfSends(relayed.from, safe, relayBlock);
    // Both the reverted relay and the cancellation that used up its Safe nonce, not the cancellation alone.
    expect(sends).to.be.greaterThan(reverted.gasUsed);
    expect(stored!.settledGas).to.equal(sends);
    expect(stored!.spentGas).to.equal(sends);
  });
});
