import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { JsonRpcProvider, Wallet, computeAddress } from "ethers";
import pino from "pino";
import { type LocalStack, startLocalStack } from "../../scripts/localStack/startLocalStack";
import { stackDatabaseEnv } from "../helpers/testDatabase";
import { devKey } from "../../scripts/localStack/devKeys";
import { TestTarget__factory, TestToken__factory, type TestTarget, type TestToken } from "../../typechain-types";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { postJson } from "../helpers/http";
import { demoAppToken, phoneLogin } from "../helpers/stackClients";
import { TestBundler } from "../helpers/testBundler";
import { ownerAccountAdmin } from "../helpers/ownerAccountAdmin";

const PHONE = "+14155550123";
const USER = "tel:14155550123";
/** The stack's relayer (built-in bundler key): in external-bundler mode it must never send anything. */
const RELAYER = computeAddress(devKey(4));

describe("Transactions (e2e: POST /v1/kernel/tx through an external ERC-4337 bundler on the local chain)", () => {
  let bundler: TestBundler;
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let token: TestToken;
  let target: TestTarget;
  let appToken: string;
  let userToken: string;

  const api = (route: string) => `${stack.apiUrl}${route}`;
  const submit = async (calls: { to: string; data: string }[]) => {
    const res = await fetch(api("/v1/kernel/tx"), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${appToken}` },
      body: JSON.stringify({
        userId: USER,
        chain: "localhost",
        auth: userToken,
        to: calls.map((call) => call.to),
        value: calls.map(() => "0"),
        data: calls.map((call) => call.data),
      }),
    });
    expect(res.status).to.equal(202);
    return ((await res.json()) as { id: string }).id;
  };
  const waitFor = async (id: string) => {
    for (let round = 0; round < 6; round++) {
      const res = await fetch(api(`/v1/kernel/tx/${id}?wait=true`), {
        headers: { Authorization: `Bearer ${appToken}` },
      });
      const body = (await res.json()) as Record<string, unknown>;
      if (body.status === "included" || body.status === "failed") return body;
    }
    throw new Error(`transaction ${id} not final after six waits`);
  };
  const transfer = (to: string, amount: bigint) => ({
    to: token.target as string,
    data: token.interface.encodeFunctionData("transfer", [to, amount]),
  });
  const record = (number: number) => ({
    to: target.target as string,
    data: target.interface.encodeFunctionData("record", [number]),
  });
  const failWith = (reason: string) => ({
    to: target.target as string,
    data: target.interface.encodeFunctionData("failWithMessage", [reason]),
  });
  /** Submits the calls and waits for the final state; with what the bundler received and sent meanwhile. */
  const send = async (calls: { to: string; data: string }[]) => {
    const [received, bundles] = [bundler.received.length, bundler.bundles.length];
    const result = await waitFor(await submit(calls));
    return { result, received: bundler.received.slice(received), bundles: bundler.bundles.slice(bundles) };
  };

  /** How often the wallet's call `record(number)` executed on chain. */
  const executions = async (wallet: string, number: number) =>
    (await target.queryFilter(target.filters.Recorded(undefined, wallet))).filter(
      (log) => log.args.number === BigInt(number),
    ).length;

  before(async () => {
    bundler = await TestBundler.start();
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-"));
    stack = await startLocalStack({
      host: "127.0.0.1",
      rpcPort: 0,
      apiPort: 0,
      dataDir,
      // A short resend delay lets the lost-operation cases below settle within a test.
      env: {
        BUNDLER_URL_LOCALHOST: bundler.url,
        TX_STUCK_AFTER_SECONDS: "1",
        TX_RETRY_DELAY_MS: "100",
        ...(await stackDatabaseEnv(dataDir)),
      },
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    });
    await bundler.attach(stack.rpcUrl, stack.deployment.contracts.entryPoint);
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const deployer = await chain.getSigner(0);
    token = await new TestToken__factory(deployer).deploy();
    target = await new TestTarget__factory(deployer).deploy();
    appToken = await demoAppToken(stack);
    userToken = await phoneLogin(stack, PHONE);
  });
  after(async () => {
    chain?.destroy();
    await stack?.close();
    await bundler?.close();
  });

  it("runs in external-bundler mode: the bundler URL given in the environment is configured", () => {
    expect(stack.config.chains.localhost?.bundlerUrl).to.equal(bundler.url);
  });

  it("sends a batch of two ERC-20 transfers from a fresh wallet through the bundler, once", async () => {
    const [bob, carol] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const resolved = await postJson(api("/v1/resolver"), { userIds: USER });
    const wallet = (resolved.body.users as { accountAddress: string }[])[0]!.accountAddress;
    await (await token.mint(wallet, 1000n)).wait();
    expect(await chain.getCode(wallet)).to.equal("0x");

    const { result: final, received, bundles } = await send([transfer(bob, 300n), transfer(carol, 200n)]);
    expect(final).to.include({ status: "included", success: true, error: null, sender: wallet });
    expect(received).to.deep.equal([final.userOpHash]);
    expect(bundles).to.deep.equal([final.transactionHash]);
    const mined = (await chain.getTransaction(final.transactionHash as string))!;
    expect(mined.from).to.equal(bundler.signer.address);
    expect((await chain.getTransactionReceipt(mined.hash))!.blockNumber).to.equal(final.blockNumber);
    expect(await chain.getCode(wallet)).to.not.equal("0x");
    expect([await token.balanceOf(wallet), await token.balanceOf(bob), await token.balanceOf(carol)]).to.deep.equal([
      500n,
      300n,
      200n,
    ]);
    expect(await chain.getTransactionCount(RELAYER)).to.equal(0);
  });

  it("ends a reverting call as included with success false and the revert reason", async () => {
    const { result: final, received, bundles } = await send([failWith("not today")]);
    expect(final).to.deep.include({
      status: "included",
      success: false,
      error: { code: "EXECUTION_REVERTED", message: "not today" },
    });
    expect([received, bundles]).to.deep.equal([[final.userOpHash], [final.transactionHash]]);
    const { result: batch } = await send([record(1), failWith("second")]);
    expect(batch).to.deep.include({
      success: false,
      error: { code: "EXECUTION_REVERTED", message: "call 1: second" },
    });
  });

  it("fails an operation the EntryPoint refuses at the bundler with the stable code of its AAxx reason", async () => {
    bundler.faults.push("forge");
    const { result: final, received, bundles } = await send([record(2)]);
    expect(final).to.deep.include({
      status: "failed",
      error: { code: "WALLET_SIGNATURE_INVALID", message: "AA24 signature error" },
    });
    expect([received.length, bundles.length]).to.deep.equal([1, 0]);
  });

  it("reads a refusal answered with an HTTP error status too", async () => {
    bundler.faults.push({ reject: "AA21 didn't pay prefund", status: 400 });
    const { result: final, received } = await send([record(3)]);
    expect(final).to.deep.include({
      status: "failed",
      error: { code: "PREFUND_NOT_PAID", message: "AA21 didn't pay prefund" },
    });
    expect(received).to.have.length(1);
  });

  it("builds an operation again after a refusal a fresh build fixes, and sends it once more", async () => {
    bundler.faults.push({ reject: "AA31 paymaster deposit too low" });
    const { result: final, received, bundles } = await send([record(4)]);
    expect(final).to.include({ status: "included", success: true, userOpHash: received[1] });
    expect([received.length, bundles]).to.deep.equal([2, [final.transactionHash]]);
  });

  it("sends an operation the bundler lost again, after checking on chain that it did not execute", async () => {
    bundler.faults.push("drop");
    const { result: final, received, bundles } = await send([record(5)]);
    expect(final).to.include({ status: "included", success: true, userOpHash: received[1] });
    expect([received.length, bundles]).to.deep.equal([2, [final.transactionHash]]);
  });

  it("retries a refused resend rather than failing it: the bundler may still hold the earlier build", async () => {
    bundler.faults.push("drop", { reject: "replacement operation must raise its fees", code: -32602 });
    const { result: final, received, bundles } = await send([record(6)]);
    expect(final).to.include({ status: "included", success: true, userOpHash: received[2] });
    expect([received.length, bundles]).to.deep.equal([3, [final.transactionHash]]);
  });

  it("finds on chain an executed operation whose receipt never comes, and does not send it again", async () => {
    bundler.faults.push("hide");
    const { result: final, received, bundles } = await send([record(7)]);
    expect(final).to.include({ status: "included", success: true, transactionHash: bundles[0] });
    expect([received.length, bundles.length]).to.deep.equal([1, 1]);
    expect(await executions(final.sender as string, 7)).to.equal(1);
  });

  it("does not fail an operation whose submission answered an internal error: it may have been taken, and was", async () => {
    bundler.faults.push({ reject: "internal error", code: -32603, afterSubmitting: true });
    const { result: final, received, bundles } = await send([record(8)]);
    expect(final).to.include({ status: "included", success: true, error: null, transactionHash: bundles[0] });
    expect([received.length, bundles.length]).to.deep.equal([1, 1]);
    expect(await executions(final.sender as string, 8)).to.equal(1);
  });

  it("a wallet handed to its user's key is not built for nor handed to the bundler: WALLET_NOT_CUSTODIAL", async () => {
    // Last but one: the user's wallet is the operator's no more. Its key may give it code whose validation passes the
    // service's simulation and fails at the bundler's, whose reverts would count against our paymaster there.
    const c = stack.deployment.contracts;
    const owner = ownerAccountAdmin(await chain.getSigner(0), c.ownerAccount);
    const salt = walletSalt("kernel", parseUserId(USER));
    await (await owner.transferWalletOwnership(c.kernelFactory, salt, Wallet.createRandom().address)).wait();
    const { result, received, bundles } = await send([record(9)]);
    expect(result).to.include({ status: "failed", userOpHash: null });
    expect((result.error as { code: string }).code).to.equal("WALLET_NOT_CUSTODIAL");
    expect(received).to.deep.equal([]);
    expect(bundles).to.deep.equal([]);
  });

  it("never used the stack's relayer", async () => {
    expect(await chain.getTransactionCount(RELAYER)).to.equal(0);
  });
});
