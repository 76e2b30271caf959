import { expect } from "chai";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import path from "node:path";
import { JsonRpcProvider, type Signer, Wallet, getAddress, parseEther, parseUnits } from "ethers";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { safeInterface } from "../../gateway/safe/encoding/safeArtifacts";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import {
  TestMultiToken__factory,
  TestNFT__factory,
  TestTarget__factory,
  TestToken__factory,
  type TestMultiToken,
  type TestNFT,
  type TestTarget,
  type TestToken,
} from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { safeStackClient } from "../helpers/safeStackClient";
import { demoAppToken } from "../helpers/stackClients";
import { databaseLocation } from "../../gateway/config/databaseSetting";

type Json = Record<string, unknown>;

describe("Safe accounts (e2e: /v1/{chain}/account… through the relayer on the local chain)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let funder: Signer;
  let token: TestToken;
  let nft: TestNFT;
  let multi: TestMultiToken;
  let target: TestTarget;
  let appToken: string;
  const customer = Wallet.createRandom();

  const call = async (
    method: "GET" | "POST",
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
    bearer = appToken,
  ) => {
    const res = await fetch(`${stack.apiUrl}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  /** Follows a Safe request until it is final. */
  const final = async (safe: string, txUuid: string): Promise<Json> => {
    for (let round = 0; round < 6; round++) {
      const { body } = await call("GET", `/v1/localhost/account/${safe}/tx/${txUuid}?wait=true`);
      if (body.status === "included" || body.status === "failed") return body;
    }
    throw new Error(`Safe request ${txUuid} not final after six waits`);
  };
  const createSafe = async (signers: string[], extra: Json = {}) => {
    const res = await call("POST", "/v1/localhost/account", { signers, ...extra });
    expect(res.status).to.equal(202);
    return res.body as { address: string; txUuid: string; status: string; owners: string[]; threshold: number };
  };
  const send = async (safe: string, path: string, body: Json, headers: Record<string, string> = {}) => {
    const res = await call("POST", `/v1/localhost/account/${safe}/${path}`, body, headers);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return { ...res, final: () => final(safe, String(res.body.txUuid)) };
  };

  let safe: string;

  /** A view function of a Safe, read from the chain. */
  const readSafe = async (address: string, fn: "getOwners" | "getThreshold" | "nonce") =>
    safeInterface.decodeFunctionResult(
      fn,
      await chain.call({ to: address, data: safeInterface.encodeFunctionData(fn) }),
    )[0] as unknown;

  before(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    funder = await chain.getSigner(0);
    token = await new TestToken__factory(funder).deploy();
    nft = await new TestNFT__factory(funder).deploy();
    multi = await new TestMultiToken__factory(funder).deploy();
    target = await new TestTarget__factory(funder).deploy();
    await Promise.all([token, nft, multi, target].map((c) => c.waitForDeployment()));
    appToken = await demoAppToken(stack);
  });
  after(async () => {
    chain.destroy();
    await stack.close();
  });

  it("creates a 1-of-n Safe at the address it answers at once: owners and threshold read back from the chain", async () => {
    const created = await createSafe([customer.address]);
    const operator = (await call("GET", "/v1/networks")).body.safeOperator as string;
    expect(created).to.include({ status: "queued", threshold: 1 });
    expect(created.owners).to.deep.equal([customer.address, operator]);
    // The address is answered before anything is mined (the worker, woken at once, may already be deploying it):
    // the Safe that ends up there is the one asked for.
    expect(await final(created.address, created.txUuid)).to.include({ status: "included", action: "create" });
    expect(await chain.getCode(created.address)).to.not.equal("0x");
    expect([...((await readSafe(created.address, "getOwners")) as string[])]).to.deep.equal([
      customer.address,
      operator,
    ]);
    expect(await readSafe(created.address, "getThreshold")).to.equal(1n);
    safe = created.address;
  });

  it("transfers native coin and an ERC-20 from the funded Safe", async () => {
    const [alice, bob] = [Wallet.createRandom().address, Wallet.createRandom().address];
    await (await funder.sendTransaction({ to: safe, value: parseEther("3") })).wait();
    await (await token.mint(safe, 1000n)).wait();
    const native = await send(safe, "payout/transfer", { to: alice, amount: parseEther("1").toString() });
    expect(native.headers.get("location")).to.equal(`/v1/localhost/account/${safe}/tx/${native.body.txUuid}`);
    const erc20 = await send(safe, "payout/transfer", { token: await token.getAddress(), to: bob, amount: "250" });
    const [a, b] = await Promise.all([native.final(), erc20.final()]);
    expect(a).to.include({ status: "included", action: "transfer", safe });
    expect(a.safeTxHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(b).to.include({ status: "included" });
    expect(await chain.getBalance(alice)).to.equal(parseEther("1"));
    expect(await token.balanceOf(bob)).to.equal(250n);
    expect(await token.balanceOf(safe)).to.equal(750n);
    // The receipt holds the Safe's own ExecutionSuccess for the hash the API shows.
    const receipt = (await chain.getTransactionReceipt(String(a.transactionHash)))!;
    const executed = receipt.logs.map((log) => safeInterface.parseLog(log)).find((e) => e?.name === "ExecutionSuccess");
    expect(executed?.args.txHash).to.equal(a.safeTxHash);
  });

  it("disperses native coin and ERC-20s to several recipients in one Safe transaction", async () => {
    const recipients = [0, 1, 2].map(() => Wallet.createRandom().address);
    const tokenAddress = await token.getAddress();
    const res = await send(safe, "payout/disperse", {
      transfers: [
        { to: recipients[0], amount: "1000" },
        { token: tokenAddress, to: recipients[1], amount: "100" },
        { token: tokenAddress, to: recipients[2], amount: "200" },
        { to: recipients[2], amount: "0x10" },
      ],
    });
    const done = await res.final();
    expect(done).to.include({ status: "included", action: "disperse" });
    expect(await chain.getBalance(recipients[0]!)).to.equal(1000n);
    expect(await token.balanceOf(recipients[1]!)).to.equal(100n);
    expect(await token.balanceOf(recipients[2]!)).to.equal(200n);
    expect(await chain.getBalance(recipients[2]!)).to.equal(16n);
    // One Safe transaction: one relayer transaction carried all four transfers.
    const receipt = (await chain.getTransactionReceipt(String(done.transactionHash)))!;
    expect(receipt.logs.filter((log) => log.address === tokenAddress)).to.have.length(2);
  });

  it("disperses ERC-721 and ERC-1155 tokens, and the new owners hold them", async () => {
    const [carol, dave] = [Wallet.createRandom().address, Wallet.createRandom().address];
    await (await nft.mint(safe, 7n)).wait();
    await (await nft.mint(safe, 8n)).wait();
    await (await multi.mint(safe, 1n, 10n)).wait();
    const done = await (
      await send(safe, "payout/disperseNFT", {
        transfers: [
          { token: await nft.getAddress(), to: carol, tokenId: "7" },
          { standard: "erc721", token: await nft.getAddress(), to: dave, tokenId: "8" },
          { standard: "erc1155", token: await multi.getAddress(), to: dave, tokenId: "1", amount: "4" },
        ],
      })
    ).final();
    expect(done).to.include({ status: "included", action: "disperseNFT" });
    expect(await nft.ownerOf(7n)).to.equal(carol);
    expect(await nft.ownerOf(8n)).to.equal(dave);
    expect(await multi.balanceOf(dave, 1n)).to.equal(4n);
    expect(await multi.balanceOf(safe, 1n)).to.equal(6n);
  });

  it("ends a custom call that reverts as failed with its reason, and the Safe nonce unused", async () => {
    const nonce = await readSafe(safe, "nonce");
    const done = await (
      await send(safe, "custom", {
        to: await target.getAddress(),
        data: target.interface.encodeFunctionData("failWithMessage", ["no such order"]),
      })
    ).final();
    expect(done).to.deep.include({
      status: "failed",
      action: "custom",
      transactionHash: null,
      error: { code: "EXECUTION_REVERTED", message: "no such order" },
    });
    expect(await readSafe(safe, "nonce")).to.equal(nonce);
    // A custom call that works runs as the Safe.
    const ok = await (
      await send(safe, "custom", {
        to: await target.getAddress(),
        data: target.interface.encodeFunctionData("record", [5]),
      })
    ).final();
    expect(ok).to.include({ status: "included", action: "custom" });
    const receipt = (await chain.getTransactionReceipt(String(ok.transactionHash)))!;
    const recorded = receipt.logs.map((log) => target.interface.parseLog(log)).find((e) => e?.name === "Recorded");
    expect(recorded?.args[1]).to.equal(safe);
  });

  it("fails a payout beyond the Safe's balance cleanly, native or ERC-20, and moves nothing", async () => {
    const balance = await chain.getBalance(safe);
    const erin = Wallet.createRandom().address;
    const native = await (await send(safe, "payout/transfer", { to: erin, amount: (balance + 1n).toString() })).final();
    expect(native).to.include({ status: "failed" });
    expect((native.error as Json).code).to.equal("INSUFFICIENT_BALANCE");
    const erc20 = await (
      await send(safe, "payout/disperse", {
        transfers: [
          { to: erin, amount: "1" },
          { token: await token.getAddress(), to: erin, amount: "1000000" },
        ],
      })
    ).final();
    expect(erc20).to.include({ status: "failed" });
    expect(erc20.error).to.deep.include({ code: "INSUFFICIENT_BALANCE" });
    expect(await chain.getBalance(erin)).to.equal(0n);
    expect(await chain.getBalance(safe)).to.equal(balance);
  });

  it("refuses bad payouts with stable codes before anything is stored", async () => {
    const bad = async (path: string, body: Json) => await call("POST", `/v1/localhost/account/${safe}/${path}`, body);
    const erc721Amount = await bad("payout/disperseNFT", {
      transfers: [{ token: await nft.getAddress(), to: customer.address, tokenId: "1", amount: "2" }],
    });
    expect([erc721Amount.status, erc721Amount.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    const zeroToken = await bad("payout/disperse", {
      transfers: [{ token: "0x0000000000000000000000000000000000000000", to: customer.address, amount: "1" }],
    });
    expect([zeroToken.status, zeroToken.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    const toSelf = await bad("payout/transfer", { to: safe, amount: "1" });
    expect([toSelf.status, toSelf.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    const empty = await bad("payout/disperse", { transfers: [] });
    expect(empty.status).to.equal(400);
    const valueInDelegatecall = await bad("custom", { to: await target.getAddress(), value: "1", operation: 1 });
    expect([valueInDelegatecall.status, valueInDelegatecall.body.code]).to.deep.equal([400, "VALUE_IN_DELEGATECALL"]);
    const unknownSafe = await call("POST", `/v1/localhost/account/${Wallet.createRandom().address}/payout/transfer`, {
      to: customer.address,
      amount: "1",
    });
    expect([unknownSafe.status, unknownSafe.body.code]).to.deep.equal([404, "NOT_FOUND"]);
    const notSafeChain = await call("POST", "/v1/base/account", { signers: [customer.address] });
    expect([notSafeChain.status, notSafeChain.body.code]).to.deep.equal([400, "CHAIN_NOT_AVAILABLE"]);
    const unknownChain = await call("POST", "/v1/nowhere/account", { signers: [customer.address] });
    expect([unknownChain.status, unknownChain.body.code]).to.deep.equal([400, "UNKNOWN_CHAIN"]);
    const operator = (await call("GET", "/v1/networks")).body.safeOperator as string;
    const operatorListed = await call("POST", "/v1/localhost/account", { signers: [operator] });
    expect([operatorListed.status, operatorListed.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
  });

  it("keeps each Safe to the app that created it (403 for another app), and lists an app's Safes page by page", async () => {
    const database = await openDatabase(databaseLocation(stack.config));
    const { app, clientSecret } = await createRepositories(database.db, () => new Date()).apps.create({
      name: "other",
    });
    await database.close();
    const auth = await fetch(`${stack.apiUrl}/v1/auth`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: app.clientId, client_secret: clientSecret }),
    });
    const otherToken = ((await auth.json()) as { access_token: string }).access_token;
    const theirs = await call(
      "POST",
      `/v1/localhost/account/${safe}/payout/transfer`,
      { to: customer.address, amount: "1" },
      {},
      otherToken,
    );
    expect([theirs.status, theirs.body.code]).to.deep.equal([403, "SAFE_NOT_OWNED"]);
    const peek = await call(
      "GET",
      `/v1/localhost/account/${safe}/tx/00000000-0000-4000-8000-000000000000`,
      undefined,
      {},
      otherToken,
    );
    expect(peek.status).to.equal(403);
    expect((await call("POST", "/v1/localhost/accounts", {}, {}, otherToken)).body).to.deep.equal({
      accounts: [],
      nextCursor: null,
    });

    await createSafe([Wallet.createRandom().address]);
    await createSafe([Wallet.createRandom().address, Wallet.createRandom().address]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call("POST", "/v1/localhost/accounts", { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.status).to.equal(200);
      const accounts = page.body.accounts as { address: string; threshold: number }[];
      expect(accounts.length).to.be.at.most(2);
      seen.push(...accounts.map((a) => a.address));
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    expect(seen[0]).to.equal(safe);
    expect(seen).to.have.length(3);
    expect(new Set(seen).size).to.equal(3);
    const badCursor = await call("POST", "/v1/localhost/accounts", { cursor: "nonsense" });
    expect([badCursor.status, badCursor.body.code]).to.deep.equal([400, "INVALID_CURSOR"]);
  });

  it("gives the same Safe for a retried creation with the same Idempotency-Key, and a 409 for the same owners and saltNonce", async () => {
    const signers = [Wallet.createRandom().address];
    const first = await call(
      "POST",
      "/v1/localhost/account",
      { signers, saltNonce: "42" },
      { "Idempotency-Key": "safe-42" },
    );
    const again = await call(
      "POST",
      "/v1/localhost/account",
      { signers, saltNonce: "42" },
      { "Idempotency-Key": "safe-42" },
    );
    expect(again.status).to.equal(202);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    expect(again.body).to.deep.include({ address: first.body.address, txUuid: first.body.txUuid });
    const duplicate = await call("POST", "/v1/localhost/account", { signers, saltNonce: "42" });
    expect([duplicate.status, duplicate.body.code]).to.deep.equal([409, "SAFE_EXISTS"]);
    expect(getAddress(String(first.body.address))).to.equal(first.body.address);
    await final(String(first.body.address), String(first.body.txUuid));
  });
});

describe("Safe accounts: the documented example (docs/safe.md) (e2e: run as written against the local stack)", () => {
  it("creates a Safe, funds it and pays two recipients in one Safe transaction", async function () {
    this.timeout(60_000);
    const readme = readFileSync(path.join(__dirname, "..", "..", "docs", "safe.md"), "utf8");
    const block = /<!-- safe-example -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "docs/safe.md's safe-example block").to.be.a("string");
    const stack = await startTestStack();
    try {
      // Asynchronously: the stack serves from this process, so blocking it would leave curl without answers.
      const run = await promisify(execFile)("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", block!], {
        env: {
          PATH: process.env.PATH,
          API: stack.apiUrl,
          RPC: stack.rpcUrl,
          CLIENT_ID: stack.demoApp.clientId,
          CLIENT_SECRET: stack.demoApp.clientSecret,
        },
        encoding: "utf8",
        timeout: 50_000,
      });
      const answers = run.stdout
        .split(/\n|(?<=\})(?=\{)/)
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Json);
      const created = answers[0]!;
      expect(created).to.include({ status: "queued", threshold: 1 });
      expect(answers[1]).to.include({ status: "included", action: "create" });
      expect(answers.at(-1)).to.include({ status: "included", action: "disperse", safe: created.address });
      const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
      expect(await chain.getBalance("0x1111111111111111111111111111111111111111")).to.equal(10n ** 15n);
      expect(await chain.getBalance("0x2222222222222222222222222222222222222222")).to.equal(2n * 10n ** 15n);
      chain.destroy();
    } finally {
      await stack.close();
    }
  });
});

describe("Safe accounts: exactly once when others race the relayer (e2e: blocks mined by hand)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let appToken: string;

  const client = () => safeStackClient(stack, chain, () => appToken);
  const api: ReturnType<typeof client>["api"] = (...args) => client().api(...args);
  const final: ReturnType<typeof client>["final"] = (...args) => client().final(...args);
  const pendingRelay: ReturnType<typeof client>["pendingRelay"] = (...args) => client().pendingRelay(...args);
  const readNonce = async (safe: string) =>
    BigInt(await chain.call({ to: safe, data: safeInterface.encodeFunctionData("nonce") }));
  /** A funded Safe, deployed. */
  const deployedSafe = async () => {
    const created = await api("POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    expect(await final(String(created.address), String(created.txUuid))).to.include({ status: "included" });
    return String(created.address);
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

  it("counts a payout once when someone else submits its signed transaction first", async () => {
    const safe = await deployedSafe();
    await (await (await chain.getSigner(0)).sendTransaction({ to: safe, value: parseEther("1") })).wait();
    const payee = Wallet.createRandom().address;
    await chain.send("evm_setAutomine", [false]);
    const payout = await api("POST", `/v1/localhost/account/${safe}/payout/transfer`, { to: payee, amount: "1000" });
    const relayed = await pendingRelay(safe);
    // Anyone may send the operator-signed execTransaction; with a higher tip it runs first.
    const copy = await (
      await chain.getSigner(7)
    ).sendTransaction({
      to: safe,
      data: relayed.input,
      // Set, not estimated: estimation would run after the pending relayer transaction and fail.
      gasLimit: 500_000n,
      maxPriorityFeePerGas: parseUnits("100", "gwei"),
      maxFeePerGas: parseUnits("200", "gwei"),
    });
    await chain.send("evm_mine", []);
    await chain.send("evm_setAutomine", [true]);
    const done = await final(safe, String(payout.txUuid));
    expect(done).to.include({ status: "included", transactionHash: copy.hash });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await chain.getBalance(payee)).to.equal(1000n);
    expect(await readNonce(safe)).to.equal(1n);
  });

  it("uses up the nonce of a payout that can no longer run before reporting it failed", async () => {
    const safe = await deployedSafe();
    const funder = await chain.getSigner(0);
    const token = await new TestToken__factory(funder).deploy();
    await token.waitForDeployment();
    await (await token.mint(safe, 1000n)).wait();
    const spender = await chain.getSigner(8);
    const approval = await api("POST", `/v1/localhost/account/${safe}/custom`, {
      to: await token.getAddress(),
      data: token.interface.encodeFunctionData("approve", [await spender.getAddress(), 900n]),
    });
    expect(await final(safe, String(approval.txUuid))).to.include({ status: "included" });

    const payee = Wallet.createRandom().address;
    await chain.send("evm_setAutomine", [false]);
    const payout = await api("POST", `/v1/localhost/account/${safe}/payout/transfer`, {
      token: await token.getAddress(),
      to: payee,
      amount: "500",
    });
    const relayed = await pendingRelay(safe);
    // The spender pulls most of the balance first: the relayer's transaction reverts, the Safe's nonce unused.
    await token.connect(spender).transferFrom(safe, await spender.getAddress(), 900n, {
      gasLimit: 200_000n,
      maxPriorityFeePerGas: parseUnits("100", "gwei"),
      maxFeePerGas: parseUnits("200", "gwei"),
    });
    await chain.send("evm_mine", []);
    await chain.send("evm_setAutomine", [true]);
    const done = await final(safe, String(payout.txUuid));
    expect(done).to.include({ status: "failed" });
    expect(done.error).to.deep.include({ code: "INSUFFICIENT_BALANCE" });
    // Its nonce was used up by the service's cancellation: topped up, the old signed transaction cannot run.
    expect(await readNonce(safe)).to.equal(2n);
    await (await token.mint(safe, 1000n)).wait();
    const replay = await chain
      .getSigner(7)
      .then((s) => s.sendTransaction({ to: safe, data: relayed.input, gasLimit: 500_000n }))
      .then((t) => t.wait())
      .then(
        () => "ran",
        () => "reverted",
      );
    expect(replay).to.equal("reverted");
    expect(await token.balanceOf(payee)).to.equal(0n);
    expect(await final(safe, String(payout.txUuid))).to.include({ status: "failed" });
  });
});
