import { expect } from "chai";
import { Transaction, keccak256 } from "ethers";
import { KernelAccountFactory__factory, type TestTarget } from "../../typechain-types";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
/** One request per bundle: each request's bundle is its own relayer transaction, so the test can tell them apart. */
const PIPELINED = { TX_MAX_BUNDLES_IN_FLIGHT: "4", TX_MAX_OPS_PER_BUNDLE: "1", TX_RETRY_DELAY_MS: "0" };

describe("Several bundles in flight (e2e: a chain that mines only when told, like one with block intervals)", function () {
  this.timeout(120_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  const proxies: RpcProxy[] = [];

  const start = async (rpcUrl: string, extra: Record<string, string> = {}) => {
    const service = await startServiceProcess(setup.env(rpcUrl, { ...PIPELINED, ...extra }));
    running.push(service);
    return service;
  };
  const requests = (service: ServiceProcess) => serviceRequests(service.url, setup.appToken, setup.userToken);
  const submit = async (service: ServiceProcess, phone: string, number: number) =>
    requests(service).submit(`tel:${phone}`, [
      { to: await target.getAddress(), data: target.interface.encodeFunctionData("record", [number]) },
    ]);
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const statuses = async (service: ServiceProcess, ids: readonly string[]) =>
    Promise.all(ids.map(async (id) => (await requests(service).view(id)).status));
  /** Relayer transactions the node holds, mined or not. */
  const relayerSent = async () =>
    Number(await setup.chain.provider.send("eth_getTransactionCount", [setup.relayer, "pending"]));
  const relayerMined = () => setup.chain.provider.getTransactionCount(setup.relayer, "latest");
  const executedOps = async () =>
    (
      await setup.chain.provider.getLogs({
        address: setup.deployment.contracts.entryPoint,
        topics: [USER_OP_EVENT],
        fromBlock: 0,
      })
    ).length;
  const mine = () => setup.chain.provider.send("evm_mine", []);
  /**
   * Deploys the wallets of `phones` with a first request each, mined at once; then the chain mines only when told.
   * Behind pending bundles no operation that creates a wallet is sent (see the attack below), so the wallets whose
   * requests are to be pipelined exist first.
   */
  const deployWallets = async (service: ServiceProcess, phones: readonly string[]) => {
    for (const phone of phones) await requests(service).final(await submit(service, phone, 0));
    await setup.chain.provider.send("evm_setAutomine", [false]);
    return relayerSent();
  };
  /** Waits until every request is included with success; the block and relayer transaction of each. */
  const included = async (service: ServiceProcess, ids: readonly string[]) => {
    const finals = await Promise.all(ids.map((id) => requests(service).final(id)));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });
    return Promise.all(
      finals.map(async (final) => {
        const receipt = (await setup.chain.provider.getTransactionReceipt(final.transactionHash!))!;
        return { tx: final.transactionHash!, block: receipt.blockNumber, sender: final.sender };
      }),
    );
  };

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, proxies));

  it("bundles at consecutive relayer nonces are pending at once and all mine in one block, a wallet at most once in flight", async () => {
    const service = await start(setup.chain.rpcUrl);
    const base = await deployWallets(service, ["14155550201", "14155550202", "14155550203", "14155550204"]);
    const others = [
      await submit(service, "14155550201", 1),
      await submit(service, "14155550202", 2),
      await submit(service, "14155550203", 3),
    ];
    // A wallet's second request, accepted while its first is waiting: it must not go in any bundle of this block.
    const first = await submit(service, "14155550204", 4);
    const second = await submit(service, "14155550204", 5);
    const inBlock = [...others, first];
    await until(async () => (await relayerSent()) === base + 4, "four bundles in the mempool");
    expect(await statuses(service, inBlock)).to.deep.equal(["submitted", "submitted", "submitted", "submitted"]);
    expect((await requests(service).view(second)).status).to.equal("queued");

    await mine();
    const mined = await included(service, inBlock);
    expect(new Set(mined.map((m) => m.block)).size, "one block").to.equal(1);
    expect(new Set(mined.map((m) => m.tx)).size, "one bundle each").to.equal(4);
    const block = await setup.chain.provider.getBlock(mined[0]!.block);
    expect(block!.transactions).to.have.members(mined.map((m) => m.tx));
    // The wallet's second request goes only after its first is settled: in a later block.
    await until(async () => (await relayerSent()) === base + 5, "the wallet's next request");
    await mine();
    const [after] = await included(service, [second]);
    expect(after!.block).to.be.greaterThan(mined[0]!.block);
    expect(await relayerMined()).to.equal(base + 5);
    expect(await executedOps()).to.equal(base + 5);
  });

  it("a bundle between pending ones that the node loses and then refuses: its request is queued again and the nonce gap is filled", async () => {
    // The node says it took the second bundle but never gets it; its resend is refused. Every other call goes on (the
    // same bytes sent again later are taken: its request, built again at the same relayer nonce, signs the same).
    let sends = 0;
    let armed = false;
    let lostTx: string | undefined;
    let refused = false;
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) => {
      if (!armed || method !== "eth_sendRawTransaction") return "forward";
      const raw = params[0] as string;
      sends++;
      if (sends === 2) {
        lostTx = raw;
        return { result: keccak256(raw) };
      }
      if (raw !== lostTx || refused) return "forward";
      refused = true;
      return { error: "insufficient funds for gas * price + value" };
    });
    proxies.push(proxy);
    const service = await start(proxy.url);
    const base = await deployWallets(service, ["14155550211", "14155550212", "14155550213"]);
    const sendsBefore = proxy.seen.filter((r) => r.method === "eth_sendRawTransaction").length;
    armed = true;
    const ids = [
      await submit(service, "14155550211", 11),
      await submit(service, "14155550212", 12),
      await submit(service, "14155550213", 13),
    ];
    // Its request back in the queue, the lost bundle's nonce is taken again by the next relayer transaction, so the
    // bundle above the gap is not stuck behind it.
    await until(
      async () =>
        (await relayerSent()) >= base + 3 &&
        proxy.seen.filter((r) => r.method === "eth_sendRawTransaction").length >= sendsBefore + 4,
      "the gap filled",
    );
    await mine();
    await setup.chain.provider.send("evm_setAutomine", [true]);
    const mined = await included(service, ids);
    expect(await executedOps(), "each operation ran once").to.equal(base + 3);
    // Nothing sent twice and no nonce left unused: every relayer transaction the node got was mined.
    expect(await relayerMined()).to.equal(await relayerSent());
    expect(refused, "the lost bundle was sent again and refused").to.equal(true);
    expect(new Set(mined.map((m) => m.tx)).size, "a bundle each").to.equal(3);
  });

  it("restarted with several recorded bundles pending: the new worker follows them all and sends none of them again", async () => {
    const first = await start(setup.chain.rpcUrl);
    const base = await deployWallets(first, ["14155550221", "14155550222", "14155550223", "14155550224"]);
    const ids = [
      await submit(first, "14155550221", 21),
      await submit(first, "14155550222", 22),
      await submit(first, "14155550223", 23),
    ];
    await until(async () => (await relayerSent()) === base + 3, "three bundles in the mempool");
    await first.kill();

    const second = await start(setup.chain.rpcUrl);
    // A request accepted by the new worker goes only once the bundles recorded before are settled.
    const later = await submit(second, "14155550224", 24);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await relayerSent(), "nothing sent again, nothing behind unknown bundles").to.equal(base + 3);
    await mine();
    const mined = await included(second, ids);
    expect(new Set(mined.map((m) => m.block)).size).to.equal(1);
    await until(async () => (await relayerSent()) === base + 4, "the later request's bundle");
    await mine();
    await included(second, [later]);
    expect(await relayerMined()).to.equal(base + 4);
    expect(await executedOps()).to.equal(base + 4);
  });

  it("an app cannot make a bundle sent behind a pending one revert: its pending operation deploys the wallet a later one would create", async () => {
    const service = await start(setup.chain.rpcUrl);
    const base = await deployWallets(service, ["14155550231"]);
    const factory = setup.deployment.contracts.kernelFactory;
    const victim = parseUserId("tel:14155550232");
    const victimWallet = deriveWalletAddress(factory, "kernel", victim);
    // Op A, of a deployed wallet, calls the factory (anyone may) to create the wallet op B is about to create.
    const createIt = KernelAccountFactory__factory.createInterface().encodeFunctionData("createAccount", [
      walletSalt("kernel", victim),
    ]);
    const a = await requests(service).submit("tel:14155550231", [{ to: factory, data: createIt }]);
    await until(async () => (await relayerSent()) === base + 1, "A's bundle pending");
    // Op B, the wallet's first request: it carries initCode, which A's bundle will have made fail (AA10).
    const b = await submit(service, "14155550232", 32);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await relayerSent(), "nothing that creates a wallet behind a pending bundle").to.equal(base + 1);
    expect((await requests(service).view(b)).status).to.equal("queued");
    await mine();
    await included(service, [a]);
    expect(await setup.chain.provider.getCode(victimWallet)).to.not.equal("0x");
    // B goes once nothing is pending, built without initCode for the wallet A deployed; no bundle reverted.
    await until(async () => (await relayerSent()) === base + 2, "B's bundle");
    await mine();
    await included(service, [b]);
    for (let nonce = base; nonce < base + 2; nonce++) {
      const blocks = await setup.chain.provider.getBlockNumber();
      for (let n = 0; n <= blocks; n++) {
        const block = await setup.chain.provider.getBlock(n, true);
        for (const tx of block!.prefetchedTransactions) {
          if (tx.from.toLowerCase() !== setup.relayer.toLowerCase() || tx.nonce !== nonce) continue;
          const receipt = await setup.chain.provider.getTransactionReceipt(tx.hash);
          expect(receipt!.status, `relayer transaction ${nonce}`).to.equal(1);
        }
      }
    }
  });

  it("a nonce gap the node will not let us fill: the filler is tried again later and later, then fills it", async () => {
    // The second bundle is lost and its resend refused, as above; its request then waits a minute for its retry, so
    // nothing is due to fill the gap but an empty transaction, which the node refuses until told otherwise.
    let sends = 0;
    let armed = false;
    let refuseFillers = true;
    let lostTx: string | undefined;
    const fillers: number[] = [];
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) => {
      if (!armed || method !== "eth_sendRawTransaction") return "forward";
      const raw = params[0] as string;
      const tx = Transaction.from(raw);
      if (tx.to?.toLowerCase() === setup.relayer.toLowerCase() && tx.data === "0x") {
        fillers.push(Date.now());
        return refuseFillers ? { error: "replacement transaction underpriced" } : "forward";
      }
      sends++;
      if (sends === 2) {
        lostTx = raw;
        return { result: keccak256(raw) };
      }
      return raw === lostTx ? { error: "insufficient funds for gas * price + value" } : "forward";
    });
    proxies.push(proxy);
    const service = await start(proxy.url, { TX_RETRY_DELAY_MS: "60000" });
    const base = await deployWallets(service, ["14155550241", "14155550242", "14155550243"]);
    armed = true;
    const ids = [
      await submit(service, "14155550241", 41),
      await submit(service, "14155550242", 42),
      await submit(service, "14155550243", 43),
    ];
    await until(async () => fillers.length >= 1, "a first filler");
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Every poll interval (250 ms) would be about a dozen in 3 s; backing off from 500 ms, at most 4 or 5.
    expect(fillers.length, "fillers tried while refused").to.be.within(2, 5);
    refuseFillers = false;
    await until(async () => (await relayerSent()) >= base + 3, "the gap filled");
    await mine();
    const mined = await included(service, [ids[0]!, ids[2]!]);
    expect(new Set(mined.map((m) => m.tx)).size).to.equal(2);
    expect(await relayerMined()).to.equal(await relayerSent());
    expect((await requests(service).view(ids[1]!)).status, "the lost bundle's request waits for its retry").to.equal(
      "queued",
    );
  });
});
