import { expect } from "chai";
import { JsonRpcProvider, type Signer, Wallet, computeAddress, keccak256 } from "ethers";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import {
  KernelAccount__factory,
  CustodyPaymaster__factory,
  TestTarget__factory,
  TestToken__factory,
  type TestTarget,
  type TestToken,
} from "../../typechain-types";
import { runAdminCli } from "../../scripts/admin/cli";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken, phoneLogin } from "../helpers/stackClients";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { ownerAccountAdmin } from "../helpers/ownerAccountAdmin";

const PHONE = "+14155550123";
const USER = "tel:14155550123";

describe("Transactions (e2e: POST /v1/kernel/tx and /v1/base/tx through the built-in bundler on the local chain)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let deployer: Signer;
  let token: TestToken;
  let target: TestTarget;
  let appToken: string;
  let userToken: string;

  const api = (route: string) => `${stack.apiUrl}${route}`;
  const submit = (body: Record<string, unknown>, headers: Record<string, string> = {}, route = "/v1/kernel/tx") =>
    fetch(api(route), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${appToken}`, ...headers },
      body: JSON.stringify({ userId: USER, chain: "localhost", auth: userToken, ...body }),
    });
  const waitFor = async (id: string, route = "/v1/kernel/tx") => {
    for (let round = 0; round < 6; round++) {
      const res = await fetch(api(`${route}/${id}?wait=true`), { headers: { Authorization: `Bearer ${appToken}` } });
      const body = (await res.json()) as Record<string, unknown>;
      if (body.status === "included" || body.status === "failed") return body;
    }
    throw new Error(`transaction ${id} not final after six waits`);
  };

  before(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    deployer = await chain.getSigner(0);
    token = await new TestToken__factory(deployer).deploy();
    target = await new TestTarget__factory(deployer).deploy();
    appToken = await demoAppToken(stack);
    userToken = await phoneLogin(stack, PHONE);
  });
  after(async () => {
    chain.destroy();
    await stack.close();
  });

  it("sends a batch of two ERC-20 transfers from a fresh wallet, deploying it, with gas paid by the paymaster", async () => {
    const [bob, carol] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const resolved = await postJson(api("/v1/resolver"), { userIds: USER });
    const wallet = (resolved.body.users as { accountAddress: string }[])[0]!.accountAddress;
    await (await token.mint(wallet, 1000n)).wait();
    expect(await chain.getCode(wallet)).to.equal("0x");
    const paymasterDeposit = await chain.call({
      to: stack.deployment.contracts.entryPoint,
      data: `0x70a08231${stack.deployment.contracts.custodyPaymaster.slice(2).padStart(64, "0")}`,
    });

    const res = await submit({
      to: [await token.getAddress(), await token.getAddress()],
      value: ["0", "0x0"],
      data: [
        token.interface.encodeFunctionData("transfer", [bob, 300n]),
        token.interface.encodeFunctionData("transfer", [carol, 200n]),
      ],
    });
    expect(res.status).to.equal(202);
    const accepted = (await res.json()) as Record<string, unknown>;
    expect(accepted).to.include({ status: "queued", userId: USER, chain: "localhost", sender: wallet });
    expect(res.headers.get("location")).to.equal(`/v1/kernel/tx/${accepted.id}`);

    const final = await waitFor(accepted.id as string);
    expect(final).to.include({ status: "included", success: true, error: null });
    expect(final.userOpHash).to.match(/^0x[0-9a-f]{64}$/);
    const receipt = (await chain.getTransactionReceipt(final.transactionHash as string))!;
    expect(receipt.blockNumber).to.equal(final.blockNumber);
    expect(await chain.getCode(wallet)).to.not.equal("0x");
    expect([await token.balanceOf(wallet), await token.balanceOf(bob), await token.balanceOf(carol)]).to.deep.equal([
      500n,
      300n,
      200n,
    ]);
    expect(await chain.getBalance(wallet)).to.equal(0n);
    const depositAfter = await chain.call({
      to: stack.deployment.contracts.entryPoint,
      data: `0x70a08231${stack.deployment.contracts.custodyPaymaster.slice(2).padStart(64, "0")}`,
    });
    // A new wallet starts on code 2.1: its operations are paid (and authorized) by the CustodyPaymaster.
    expect(BigInt(depositAfter)).to.be.lessThan(BigInt(paymasterDeposit));
  });

  it("runs delegatecall requests as documented once the operator grants them: the target's code runs as the wallet", async () => {
    const request = {
      to: [await target.getAddress(), await target.getAddress()],
      value: ["0", "0"],
      data: [target.interface.encodeFunctionData("record", [7]), target.interface.encodeFunctionData("record", [8])],
      delegatecall: 1,
    };
    const refused = await submit(request);
    expect([refused.status, ((await refused.json()) as { code: string }).code]).to.deep.equal([
      403,
      "CALL_NOT_ALLOWED",
    ]);
    // The operator grants the demo app delegatecall with the admin CLI, on the running service's database.
    const database = await openDatabase(databaseLocation(stack.config));
    const demo = await createRepositories(database.db, () => new Date()).apps.findByClientId(stack.demoApp.clientId);
    await database.close();
    const quiet = { out: () => undefined, err: () => undefined };
    const granted = await runAdminCli(
      ["--db", databaseLocation(stack.config), "apps", "grant-delegatecall", demo!.id],
      {
        env: {},
        output: quiet,
        clock: () => new Date(),
      },
    );
    expect(granted).to.equal(0);

    // The wallet itself still refuses code the owner account's admin has not allowed (a stolen signer key gets no
    // further than an app does).
    const unallowed = await submit(request);
    expect(unallowed.status).to.equal(202);
    const refusedOnChain = await waitFor(((await unallowed.json()) as { id: string }).id);
    expect(refusedOnChain).to.include({ status: "included", success: false });
    expect(JSON.stringify(refusedOnChain.error)).to.contain(
      KernelAccount__factory.createInterface().getError("OwnedAccountDelegateCallNotAllowed")!.selector.slice(2),
    );
    // The admin allows the script's code on chain, by its code hash.
    const admin = await chain.getSigner(0);
    const ownerAccount = ownerAccountAdmin(admin, stack.deployment.contracts.ownerAccount);
    await (await ownerAccount.setDelegateCode(keccak256(await chain.getCode(await target.getAddress())), true)).wait();

    const res = await submit(request);
    expect(res.status).to.equal(202);
    const final = await waitFor(((await res.json()) as { id: string }).id);
    expect(final).to.include({ status: "included", success: true });
    const receipt = (await chain.getTransactionReceipt(final.transactionHash as string))!;
    const recorded = receipt.logs
      .filter((log) => log.topics[0] === target.interface.getEvent("Recorded").topicHash)
      .map((log) => {
        const args = target.interface.parseLog(log)!.args;
        return { emitter: log.address, self: args.self as string, number: args.number as bigint };
      });
    // The events come from the wallet itself, and `address(this)` in the target's code is the wallet.
    expect(recorded.map((r) => [r.emitter, r.self, r.number])).to.deep.equal([
      [final.sender, final.sender, 7n],
      [final.sender, final.sender, 8n],
    ]);
  });

  it("refuses an app holding the user's phone-login token that calls transferOwnership on the wallet itself", async () => {
    const resolved = await postJson(api("/v1/resolver"), { userIds: USER });
    const wallet = (resolved.body.users as { accountAddress: string }[])[0]!.accountAddress;
    const account = KernelAccount__factory.connect(wallet, chain);
    const attacker = Wallet.createRandom().address;
    const takeover = account.interface.encodeFunctionData("transferOwnership", [attacker]);
    for (const body of [
      { to: [wallet], value: ["0"], data: [takeover] },
      { to: [stack.deployment.contracts.ownerAccount], value: ["0"], data: ["0x"] },
    ]) {
      const res = await submit(body);
      expect([res.status, ((await res.json()) as { code: string }).code]).to.deep.equal([403, "CALL_NOT_ALLOWED"]);
    }
    expect(await account.owner()).to.equal(stack.deployment.contracts.ownerAccount);
  });

  it("refuses value in a delegatecall, mismatched arrays and too many calls, with stable codes", async () => {
    const to = await target.getAddress();
    const valued = await submit({ to: [to], value: ["1"], data: ["0x"], delegatecall: 1 });
    expect([valued.status, ((await valued.json()) as { code: string }).code]).to.deep.equal([
      400,
      "VALUE_IN_DELEGATECALL",
    ]);
    const mismatch = await submit({ to: [to, to], value: ["0"], data: ["0x", "0x"] });
    expect([mismatch.status, ((await mismatch.json()) as { code: string }).code]).to.deep.equal([
      400,
      "ARRAY_LENGTH_MISMATCH",
    ]);
    const many = Array.from({ length: stack.config.transactions.maxCalls + 1 }, () => to);
    const tooMany = await submit({ to: many, value: many.map(() => "0"), data: many.map(() => "0x") });
    expect([tooMany.status, ((await tooMany.json()) as { code: string }).code]).to.deep.equal([400, "TOO_MANY_CALLS"]);
    const unknown = await submit({ chain: "nowhere", to: [to], value: ["0"], data: ["0x"] });
    expect([unknown.status, ((await unknown.json()) as { code: string }).code]).to.deep.equal([400, "UNKNOWN_CHAIN"]);
  });

  it("ends a reverting call as included with success false and the revert reason", async () => {
    const res = await submit({
      to: [await target.getAddress()],
      value: ["0"],
      data: [target.interface.encodeFunctionData("failWithMessage", ["not today"])],
    });
    const final = await waitFor(((await res.json()) as { id: string }).id);
    expect(final).to.deep.include({
      status: "included",
      success: false,
      error: { code: "EXECUTION_REVERTED", message: "not today" },
    });
    const batch = await submit({
      to: [await target.getAddress(), await target.getAddress()],
      value: ["0", "0"],
      data: [
        target.interface.encodeFunctionData("record", [1]),
        target.interface.encodeFunctionData("failWithMessage", ["second"]),
      ],
    });
    const batchFinal = await waitFor(((await batch.json()) as { id: string }).id);
    expect(batchFinal.error).to.deep.equal({ code: "EXECUTION_REVERTED", message: "call 1: second" });
  });

  it("refuses another user's id with the proof of this one, and stores nothing", async () => {
    const res = await submit({
      userId: "tel:14155550199",
      to: [await target.getAddress()],
      value: ["0"],
      data: ["0x"],
    });
    expect(res.status).to.equal(403);
    expect(((await res.json()) as { code: string }).code).to.equal("PROOF_MISMATCH");
  });

  it("creates one transaction for retries with the same Idempotency-Key, and 409s the key with another body", async () => {
    const body = {
      to: [await target.getAddress()],
      value: ["0"],
      data: [target.interface.encodeFunctionData("record", [42])],
    };
    const key = { "Idempotency-Key": "order-42" };
    const [first, second] = await Promise.all([submit(body, key), submit(body, key)]);
    const [a, b] = [(await first.json()) as { id: string }, (await second.json()) as { id: string }];
    expect(a.id).to.equal(b.id);
    expect([first.headers.get("idempotent-replayed"), second.headers.get("idempotent-replayed")]).to.include("true");
    const final = await waitFor(a.id);
    const third = await submit(body, key);
    expect((await third.json()) as { id: string; status: string }).to.include({ id: a.id, status: "included" });
    const receipt = (await chain.getTransactionReceipt(final.transactionHash as string))!;
    const recordedTopic = target.interface.getEvent("Recorded").topicHash;
    const all = await chain.getLogs({ address: await target.getAddress(), topics: [recordedTopic], fromBlock: 0 });
    expect(all.filter((log) => target.interface.parseLog(log)!.args.number === 42n)).to.have.length(1);
    expect(receipt.status).to.equal(1);
    const conflict = await submit({ ...body, data: ["0x"] }, key);
    expect([conflict.status, ((await conflict.json()) as { code: string }).code]).to.deep.equal([
      409,
      "IDEMPOTENCY_KEY_REUSED",
    ]);
  });

  it("hides a transaction from other apps and from unauthenticated callers", async () => {
    const res = await submit({ to: [await target.getAddress()], value: ["0"], data: ["0x"] });
    const { id } = (await res.json()) as { id: string };
    const anonymous = await fetch(api(`/v1/kernel/tx/${id}`));
    expect(anonymous.status).to.equal(401);
    const missing = await fetch(api("/v1/kernel/tx/00000000-0000-4000-8000-000000000000"), {
      headers: { Authorization: `Bearer ${appToken}` },
    });
    expect([missing.status, ((await missing.json()) as { code: string }).code]).to.deep.equal([404, "NOT_FOUND"]);
    await waitFor(id);
  });

  it("sends through the deprecated base account with Deprecation and Link headers", async () => {
    const wallet = (
      (await postJson(api("/v1/resolver"), { userIds: USER })).body.users as { accountAddress: string }[]
    )[0]!.accountAddress;
    const res = await submit(
      { to: [await target.getAddress()], value: ["0"], data: [target.interface.encodeFunctionData("record", [5])] },
      {},
      "/v1/base/tx",
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get("deprecation")).to.match(/^@\d+$/);
    expect(res.headers.get("link")).to.contain('</v1/kernel/tx>; rel="successor-version"');
    const accepted = (await res.json()) as { id: string; sender: string };
    expect(accepted.sender).to.not.equal(wallet); // the base wallet is another account than the Kernel one
    const final = await waitFor(accepted.id, "/v1/base/tx");
    expect(final).to.include({ status: "included", success: true });
    expect(await chain.getCode(accepted.sender)).to.not.equal("0x");
    const kernelView = await fetch(api(`/v1/kernel/tx/${accepted.id}`), {
      headers: { Authorization: `Bearer ${appToken}` },
    });
    expect(kernelView.status).to.equal(404);
  });

  it("holds requests while the paymaster deposit is too low, and sends them once it is topped up", async () => {
    // The wallet is on code 2.1: the CustodyPaymaster's deposit pays for it.
    const paymaster = CustodyPaymaster__factory.connect(stack.deployment.contracts.custodyPaymaster, deployer);
    const deposit = await paymaster.getDeposit();
    await (await paymaster.withdrawTo(await deployer.getAddress(), deposit)).wait();
    const res = await submit({
      to: [await target.getAddress()],
      value: ["0"],
      data: [target.interface.encodeFunctionData("record", [9])],
    });
    const { id } = (await res.json()) as { id: string };
    let held: Record<string, unknown> = {};
    for (let i = 0; i < 100 && (held.error as { code?: string } | null)?.code !== "PAYMASTER_DEPOSIT_LOW"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      held = (await (
        await fetch(api(`/v1/kernel/tx/${id}`), { headers: { Authorization: `Bearer ${appToken}` } })
      ).json()) as Record<string, unknown>;
    }
    expect(held).to.deep.include({
      status: "queued",
      error: { code: "PAYMASTER_DEPOSIT_LOW", message: "AA31 paymaster deposit too low" },
    });
    await (await paymaster.deposit({ value: deposit })).wait();
    expect(await waitFor(id)).to.include({ status: "included", success: true });
  });
});

describe("Transactions (e2e: bundles in sequence while blocks are slow, TX_MAX_BUNDLES_IN_FLIGHT=1)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let target: TestTarget;
  let appToken: string;
  const users: { userId: string; auth: string }[] = [];

  const api = (route: string) => `${stack.apiUrl}${route}`;
  const view = async (id: string) =>
    (await (
      await fetch(api(`/v1/kernel/tx/${id}`), { headers: { Authorization: `Bearer ${appToken}` } })
    ).json()) as Record<string, unknown>;
  const submit = async (user: { userId: string; auth: string }, number: number) => {
    const res = await fetch(api("/v1/kernel/tx"), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${appToken}` },
      body: JSON.stringify({
        userId: user.userId,
        chain: "localhost",
        auth: user.auth,
        to: [await target.getAddress()],
        value: ["0"],
        data: [target.interface.encodeFunctionData("record", [number])],
      }),
    });
    expect(res.status).to.equal(202);
    return ((await res.json()) as { id: string }).id;
  };
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 150; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting until ${what}`);
  };
  const pendingRelayerTxs = async () => {
    const block = (await chain.send("eth_getBlockByNumber", ["pending", true])) as { transactions: { from: string }[] };
    const relayer = computeAddress(stack.config.relayerKey!);
    return block.transactions.filter((tx) => tx.from.toLowerCase() === relayer.toLowerCase()).length;
  };

  before(async () => {
    // One bundle in flight at a time, as before several could be (test/e2e/pipelinedBundles.test.ts).
    stack = await startTestStack(undefined, { env: { TX_MAX_BUNDLES_IN_FLIGHT: "1" } });
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    target = await new TestTarget__factory(await chain.getSigner(0)).deploy();
    await target.waitForDeployment();
    appToken = await demoAppToken(stack);
    for (const phone of ["+14155550161", "+14155550162"]) {
      users.push({ userId: `tel:${phone.slice(1)}`, auth: await phoneLogin(stack, phone) });
    }
  });
  after(async () => {
    await chain.send("evm_setAutomine", [true]);
    chain.destroy();
    await stack.close();
  });

  it("keeps one bundle in flight, a wallet's requests in order, and sends what came meanwhile once it is mined", async () => {
    const [alice, bob] = users as [{ userId: string; auth: string }, { userId: string; auth: string }];
    await chain.send("evm_setAutomine", [false]);
    const first = await submit(alice, 1);
    await until(async () => (await view(first)).status === "submitted", "the first request is sent");
    const other = await submit(bob, 2);
    const next = await submit(alice, 3);
    // While the first bundle waits for a block, nothing else is broadcast, and alice's next request is not built.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await pendingRelayerTxs()).to.equal(1);
    expect((await view(next)).status).to.equal("queued");

    const mined = async () => {
      await chain.send("evm_mine", []);
      const views = await Promise.all([first, other, next].map(view));
      return views.every((v) => v.status === "included");
    };
    await until(mined, "every request is included");
    const [a, b, c] = await Promise.all([first, other, next].map(view));
    for (const v of [a, b, c]) expect(v).to.include({ success: true });
    // alice's second request runs after her first; bob's went in the bundle after hers, not with it.
    expect(Number(c!.blockNumber)).to.be.greaterThan(Number(a!.blockNumber));
    expect(Number(b!.blockNumber)).to.be.greaterThan(Number(a!.blockNumber));
    const bundles = await Promise.all(
      [a, b, c].map(async (v) => (await chain.getTransaction(String(v!.transactionHash)))!.nonce),
    );
    expect(bundles[1]).to.equal(bundles[0]! + 1);
  });
});
