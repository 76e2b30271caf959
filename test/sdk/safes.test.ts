import { expect } from "chai";
import { type IdwalletClient, IdwalletError, createIdwalletClient } from "@idwallet/client";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../helpers/placeholderSafeContracts";
import { type ServedTestApp, idleChain, serveTestApp } from "../helpers/servedTestApp";
import { TEST_NOW } from "../helpers/testApp";

const CHAIN = "localhost";
const SIGNER = "0x00000000000000000000000000000000000000A1";
const PAYEE = "0x000000000000000000000000000000000000bEEF";
const TOKEN = "0x000000000000000000000000000000000000C0DE";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** How long the service holds a `?wait=true` poll: far longer than a settled request should take to come back. */
const SERVICE_WAIT_MS = 5000;

/** Collects an async iterable into an array. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("client package: safes.* (create, payouts, following and listing a Safe's requests)", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let clock = TEST_NOW.getTime();
  /** Moves the service's clock a millisecond on, so each request is newer than the one before. */
  const tick = () => service.setClock(new Date((clock += 1)));
  before(async () => {
    service = await serveTestApp(
      {
        chains: { [CHAIN]: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: PLACEHOLDER_SAFE_CONTRACTS },
        transactions: { waitTimeoutMs: SERVICE_WAIT_MS },
      },
      { chains: new Map([[CHAIN, idleChain()]]), txChains: [CHAIN] },
    );
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
  });
  after(() => service.close());
  beforeEach(() => {
    tick();
    service.received.splice(0);
  });

  /** A new Safe of the test's app: its address, as `create` answers it and every other method takes it. */
  const newSafe = async (client = idwallet) => {
    return (await client.safes.create(CHAIN, { signers: [SIGNER] })).address;
  };
  const keysSentTo = (path: string) =>
    service.receivedAt("POST", path).map((entry) => entry.headers["idempotency-key"]);

  it("creates a Safe (signers and the operator, threshold 1) and lists the app's Safes page by page", async () => {
    const created = await idwallet.safes.create(CHAIN, { signers: [SIGNER], saltNonce: "7" });
    expect(created).to.include({ chain: CHAIN, threshold: 1, saltNonce: "7", status: "queued" });
    expect(created.owners[0]).to.equal(SIGNER);
    expect(created.owners).to.have.length(2);
    expect(created.txUuid).to.match(UUID);
    tick();
    const second = await newSafe();
    const first = await idwallet.safes.list(CHAIN, { limit: 1 });
    expect(first.accounts.map((safe) => safe.address)).to.deep.equal([created.address]);
    expect(first.accounts[0]!.deployment).to.deep.equal({
      txUuid: created.txUuid,
      status: "queued",
      transactionHash: null,
    });
    const next = await idwallet.safes.list(CHAIN, { limit: 1, cursor: first.nextCursor! });
    expect(next.accounts.map((safe) => safe.address)).to.include(second);
  });

  it("makes a fresh Idempotency-Key for each Safe request without one, and sends the key it is given", async () => {
    const safe = await newSafe();
    const target = { chain: CHAIN, address: safe };
    const first = await idwallet.safes.transfer(target, { to: PAYEE, amount: "1" });
    const second = await idwallet.safes.transfer(target, { to: PAYEE, amount: "1" });
    expect(second.txUuid).to.not.equal(first.txUuid);
    const generated = keysSentTo(`/v1/${CHAIN}/account/${safe}/payout/transfer`);
    expect(generated).to.have.length(2);
    for (const key of generated) expect(key).to.match(UUID);
    expect(generated[0]).to.not.equal(generated[1]);
    expect(keysSentTo(`/v1/${CHAIN}/account`)[0]).to.match(UUID);

    const idempotencyKey = `payout-${Date.now()}`;
    const kept = await idwallet.safes.transfer({ ...target, idempotencyKey }, { to: PAYEE, amount: "2" });
    const again = await idwallet.safes.transfer({ ...target, idempotencyKey }, { to: PAYEE, amount: "2" });
    expect(again.txUuid).to.equal(kept.txUuid);
    expect(keysSentTo(`/v1/${CHAIN}/account/${safe}/payout/transfer`).slice(2)).to.deep.equal([
      idempotencyKey,
      idempotencyKey,
    ]);
    const createKey = `safe-${Date.now()}`;
    const made = await idwallet.safes.create(CHAIN, { signers: [SIGNER], saltNonce: "99" }, createKey);
    const remade = await idwallet.safes.create(CHAIN, { signers: [SIGNER], saltNonce: "99" }, createKey);
    expect(remade.txUuid).to.equal(made.txUuid);
    expect(keysSentTo(`/v1/${CHAIN}/account`).slice(-2)).to.deep.equal([createKey, createKey]);
  });

  it("sends a custom call, a disperse and an NFT disperse, each to its route with its action", async () => {
    const safe = await newSafe();
    const target = { chain: CHAIN, address: safe };
    const custom = await idwallet.safes.customCall(target, { to: PAYEE, value: "5", data: "0x" });
    const disperse = await idwallet.safes.disperse(target, {
      transfers: [
        { to: PAYEE, amount: "1" },
        { token: TOKEN, to: PAYEE, amount: "2" },
      ],
    });
    const nfts = await idwallet.safes.disperseNft(target, {
      transfers: [
        { token: TOKEN, to: PAYEE, tokenId: "1" },
        { standard: "erc1155", token: TOKEN, to: PAYEE, tokenId: "2", amount: "3" },
      ],
    });
    expect([custom, disperse, nfts].map((record) => [record.action, record.status, record.safe])).to.deep.equal([
      ["custom", "queued", safe],
      ["disperse", "queued", safe],
      ["disperseNFT", "queued", safe],
    ]);
    for (const path of ["custom", "payout/disperse", "payout/disperseNFT"]) {
      expect(keysSentTo(`/v1/${CHAIN}/account/${safe}/${path}`), path).to.have.length(1);
    }
  });

  it("waits for a transfer until it is included, from the poll the service holds", async () => {
    const safe = await newSafe();
    const target = { chain: CHAIN, address: safe };
    const transfer = await idwallet.safes.transfer(target, { to: PAYEE, amount: "1" });
    expect(await idwallet.safes.getTransaction({ ...target, txUuid: transfer.txUuid })).to.include({
      txUuid: transfer.txUuid,
      status: "queued",
    });
    const transactionHash = `0x${"cd".repeat(32)}`;
    // What the worker records once the relayer's transaction is mined.
    const settle = async () =>
      (await service.repositories).transactions.settle(transfer.txUuid, {
        status: "included",
        transactionHash,
        blockNumber: 9,
        success: true,
      });
    setTimeout(() => void settle(), 300);
    const started = Date.now();
    const final = await idwallet.safes.waitForTransaction(
      { ...target, txUuid: transfer.txUuid },
      { timeoutMs: SERVICE_WAIT_MS * 2 },
    );
    expect(final).to.include({ txUuid: transfer.txUuid, status: "included", transactionHash, blockNumber: 9 });
    expect(Date.now() - started).to.be.below(SERVICE_WAIT_MS);
    const polls = service
      .receivedAt("GET", `/v1/${CHAIN}/account/${safe}/tx/${transfer.txUuid}`)
      .map((entry) => entry.url.split("?")[1]);
    expect(polls).to.deep.equal([undefined, undefined, "wait=true"]);
  });

  it("lists a Safe's requests newest first, page by page, and allTransactions follows every page", async () => {
    const safe = await newSafe();
    const target = { chain: CHAIN, address: safe };
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      tick();
      sent.push((await idwallet.safes.transfer(target, { to: PAYEE, amount: String(i + 1) })).txUuid);
    }
    const deployment = (await idwallet.safes.list(CHAIN, { limit: 100 })).accounts.find(
      (account) => account.address === safe,
    )!.deployment.txUuid;
    const newestFirst = [...sent].reverse().concat(deployment);
    const first = await idwallet.safes.listTransactions(target, { limit: 2 });
    expect(first.items.map((item) => item.txUuid)).to.deep.equal(newestFirst.slice(0, 2));
    const second = await idwallet.safes.listTransactions(target, { limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((item) => item.txUuid)).to.deep.equal(newestFirst.slice(2));
    expect(second.nextCursor).to.equal(null);

    service.received.splice(0);
    const all = await collect(idwallet.safes.allTransactions(target, { limit: 1 }));
    expect(all.map((item) => item.txUuid)).to.deep.equal(newestFirst);
    expect(service.receivedAt("GET", `/v1/${CHAIN}/account/${safe}/txs`)).to.have.length(4);
    const created = await collect(idwallet.safes.allTransactions(target, { status: "queued", limit: 100 }));
    expect(created.map((item) => item.txUuid)).to.deep.equal(newestFirst);
  });
});

describe("attacks on the client's safes.*: another app's client, a Safe configuration call", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let rival: IdwalletClient;
  let safe: string;
  let transferUuid: string;
  before(async () => {
    service = await serveTestApp(
      {
        chains: { [CHAIN]: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: PLACEHOLDER_SAFE_CONTRACTS },
      },
      { chains: new Map([[CHAIN, idleChain()]]), txChains: [CHAIN] },
    );
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
    const { app, clientSecret } = await service.appWithToken("rival app", true);
    rival = createIdwalletClient({ baseUrl: service.baseUrl, clientId: app.clientId, clientSecret });
    safe = (await idwallet.safes.create(CHAIN, { signers: [SIGNER] })).address;
    transferUuid = (await idwallet.safes.transfer({ chain: CHAIN, address: safe }, { to: PAYEE, amount: "1" })).txUuid;
  });
  after(() => service.close());

  /** What `attempt` threw, checked to be the service's 403 SAFE_NOT_OWNED with the answer's request id. */
  const expectNotOwned = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => expect.fail("the rival's request was answered"),
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 403, code: "SAFE_NOT_OWNED" });
    const answered = service.received.at(-1)!.answer!;
    expect((error as IdwalletError).requestId)
      .to.be.a("string")
      .and.equal(answered.requestId);
  };

  it("another app's client listing the Safe's requests is refused with 403 SAFE_NOT_OWNED, nothing listed", async () => {
    await expectNotOwned(rival.safes.listTransactions({ chain: CHAIN, address: safe }));
    await expectNotOwned(collect(rival.safes.allTransactions({ chain: CHAIN, address: safe }, { limit: 1 })));
  });

  it("another app's client reading, waiting for or paying out of the Safe is refused alike", async () => {
    const target = { chain: CHAIN, address: safe, txUuid: transferUuid };
    await expectNotOwned(rival.safes.getTransaction(target));
    await expectNotOwned(rival.safes.waitForTransaction(target, { timeoutMs: 2000 }));
    await expectNotOwned(rival.safes.transfer(target, { to: PAYEE, amount: "1" }));
    expect((await rival.safes.list(CHAIN)).accounts).to.deep.equal([]);
  });

  it("a DELEGATECALL custom call without the operator's grant is refused with 403 SAFE_CALL_NOT_ALLOWED", async () => {
    const error = await idwallet.safes
      .customCall({ chain: CHAIN, address: safe }, { to: PAYEE, data: "0x", operation: 1 })
      .catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 403, code: "SAFE_CALL_NOT_ALLOWED" });
  });
});
