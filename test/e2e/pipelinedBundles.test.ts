import { expect } from "chai";
import { keccak256 } from "ethers";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
/** One request per bundle: each request's bundle is its own relayer transaction, so the test can tell them apart. */
const PIPELINED = { TX_MAX_BUNDLES_IN_FLIGHT: "4", TX_MAX_OPS_PER_BUNDLE: "1", TX_RETRY_DELAY_MS: "0" };

describe("Several bundles in flight (e2e: a chain that mines only when told, like one with block intervals)", function () {
  this.timeout(120_000);
  let setup: Setup;
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
    setup = await prepareServiceOnChain();
    target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    await setup.chain.provider.send("evm_setAutomine", [false]);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.kill()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    await setup.chain.close();
  });

  it("bundles at consecutive relayer nonces are pending at once and all mine in one block, a wallet at most once in flight", async () => {
    const service = await start(setup.chain.rpcUrl);
    const others = [
      await submit(service, "14155550201", 1),
      await submit(service, "14155550202", 2),
      await submit(service, "14155550203", 3),
    ];
    // A wallet's second request, accepted while its first is waiting: it must not go in any bundle of this block.
    const first = await submit(service, "14155550204", 4);
    const second = await submit(service, "14155550204", 5);
    const inBlock = [...others, first];
    await until(async () => (await relayerSent()) === 4, "four bundles in the mempool");
    expect(await statuses(service, inBlock)).to.deep.equal(["submitted", "submitted", "submitted", "submitted"]);
    expect((await requests(service).view(second)).status).to.equal("queued");

    await mine();
    const mined = await included(service, inBlock);
    expect(new Set(mined.map((m) => m.block)).size, "one block").to.equal(1);
    expect(new Set(mined.map((m) => m.tx)).size, "one bundle each").to.equal(4);
    const block = await setup.chain.provider.getBlock(mined[0]!.block);
    expect(block!.transactions).to.have.members(mined.map((m) => m.tx));
    // The wallet's second request goes only after its first is settled: in a later block.
    await until(async () => (await relayerSent()) === 5, "the wallet's next request");
    await mine();
    const [after] = await included(service, [second]);
    expect(after!.block).to.be.greaterThan(mined[0]!.block);
    expect(await relayerMined()).to.equal(5);
    expect(await executedOps()).to.equal(5);
  });

  it("a bundle between pending ones that the node loses and then refuses: its request is queued again and the nonce gap is filled", async () => {
    // The node says it took the second bundle but never gets it; a resend of it is refused. Every other call goes on.
    let sends = 0;
    let lostTx: string | undefined;
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) => {
      if (method !== "eth_sendRawTransaction") return "forward";
      const raw = params[0] as string;
      sends++;
      if (sends === 2) {
        lostTx = raw;
        return { result: keccak256(raw) };
      }
      return raw === lostTx ? { error: "insufficient funds for gas * price + value" } : "forward";
    });
    proxies.push(proxy);
    const service = await start(proxy.url);
    const ids = [
      await submit(service, "14155550211", 11),
      await submit(service, "14155550212", 12),
      await submit(service, "14155550213", 13),
    ];
    // Its request back in the queue, the lost bundle's nonce is taken again by the next relayer transaction, so the
    // bundle above the gap is not stuck behind it.
    await until(
      async () =>
        (await relayerSent()) >= 3 && proxy.seen.filter((r) => r.method === "eth_sendRawTransaction").length >= 4,
      "the gap filled",
    );
    await mine();
    await setup.chain.provider.send("evm_setAutomine", [true]);
    const mined = await included(service, ids);
    expect(await executedOps(), "each operation ran once").to.equal(3);
    // Nothing sent twice and no nonce left unused: every relayer transaction the node got was mined.
    expect(await relayerMined()).to.equal(await relayerSent());
    expect(keccak256(lostTx!)).to.not.be.oneOf(mined.map((m) => m.tx));
  });

  it("restarted with several recorded bundles pending: the new worker follows them all and sends none of them again", async () => {
    const first = await start(setup.chain.rpcUrl);
    const ids = [
      await submit(first, "14155550221", 21),
      await submit(first, "14155550222", 22),
      await submit(first, "14155550223", 23),
    ];
    await until(async () => (await relayerSent()) === 3, "three bundles in the mempool");
    await first.kill();

    const second = await start(setup.chain.rpcUrl);
    // A request accepted by the new worker goes only once the bundles recorded before are settled.
    const later = await submit(second, "14155550224", 24);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await relayerSent(), "nothing sent again, nothing behind unknown bundles").to.equal(3);
    await mine();
    const mined = await included(second, ids);
    expect(new Set(mined.map((m) => m.block)).size).to.equal(1);
    await until(async () => (await relayerSent()) === 4, "the later request's bundle");
    await mine();
    await included(second, [later]);
    expect(await relayerMined()).to.equal(4);
    expect(await executedOps()).to.equal(4);
  });
});
