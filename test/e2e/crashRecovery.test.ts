import { expect } from "chai";
import { Transaction, Wallet, keccak256, parseEther } from "ethers";
import { type TestTarget } from "../../typechain-types";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;

describe("Crash safety (e2e: the service process is killed mid-flight and restarted)", function () {
  this.timeout(120_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  const proxies: RpcProxy[] = [];

  const start = async (rpcUrl: string, extra: Record<string, string> = {}) => {
    const service = await startServiceProcess(setup.env(rpcUrl, extra));
    running.push(service);
    return service;
  };
  const submit = async (service: ServiceProcess, phone: string, number: number) =>
    serviceRequests(service.url, setup.appToken, setup.userToken).submit(`tel:${phone}`, [
      { to: await target.getAddress(), data: target.interface.encodeFunctionData("record", [number]) },
    ]);
  const statusOf = (service: ServiceProcess, id: string, wait = false) =>
    serviceRequests(service.url, setup.appToken, setup.userToken).view(id, wait);
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The chain's UserOperationEvents of the wallets' operations: exactly one per request means nothing ran twice. */
  const executedOps = async () =>
    (
      await setup.chain.provider.getLogs({
        address: setup.deployment.contracts.entryPoint,
        topics: [USER_OP_EVENT],
        fromBlock: 0,
      })
    ).length;
  const relayerNonce = () => setup.chain.provider.getTransactionCount(setup.relayer, "latest");
  /** Waits for every request to be included; returns the bundle transactions that carried them. */
  const allIncluded = async (service: ServiceProcess, ids: string[]) => {
    const finals = await Promise.all(ids.map((id) => statusOf(service, id, true)));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });
    return new Set(finals.map((final) => final.transactionHash));
  };

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, proxies));

  it("killed with its bundle in the mempool: the restart settles that bundle and sends nothing again", async () => {
    await setup.chain.provider.send("evm_setAutomine", [false]);
    const first = await start(setup.chain.rpcUrl);
    const ids = [
      await submit(first, "14155550101", 1),
      await submit(first, "14155550102", 2),
      await submit(first, "14155550103", 3),
    ];
    // One bundle in flight at a time: the first request is in the mempool, the others wait their turn.
    await until(async () => (await statusOf(first, ids[0]!)).status === "submitted", "the first bundle");
    await first.kill();
    await setup.chain.provider.send("evm_mine", []);
    await setup.chain.provider.send("evm_setAutomine", [true]);

    const second = await start(setup.chain.rpcUrl);
    const bundles = await allIncluded(second, ids);
    // Every relayer transaction is one of the bundles that carried them, and each operation ran once.
    expect(await relayerNonce()).to.equal(bundles.size);
    expect(await executedOps()).to.equal(3);
  });

  it("killed after recording a bundle the node never got: the restart broadcasts that same transaction once", async () => {
    // The node never answers eth_sendRawTransaction through this proxy: the process dies while waiting.
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method) =>
      method === "eth_sendRawTransaction" ? "hang" : "forward",
    );
    proxies.push(proxy);
    const first = await start(proxy.url);
    const ids = [await submit(first, "14155550111", 11), await submit(first, "14155550112", 12)];
    await until(async () => proxy.seen.some((r) => r.method === "eth_sendRawTransaction"), "the broadcast");
    await first.kill();
    expect(await relayerNonce()).to.equal(0);

    const held = proxy.seen.find((r) => r.method === "eth_sendRawTransaction")!.params[0] as string;
    const second = await start(setup.chain.rpcUrl);
    const bundles = await allIncluded(second, ids);
    // The transaction recorded before the crash is the one mined: rebroadcast as signed, not rebuilt.
    expect([...bundles]).to.include(keccak256(held));
    expect(await relayerNonce()).to.equal(bundles.size);
    expect(await executedOps()).to.equal(2);
  });

  it("killed before building anything: the restart resumes every queued request", async () => {
    // Every chain call hangs: requests are accepted and stay queued.
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method) => (method === "eth_chainId" ? "forward" : "hang"));
    proxies.push(proxy);
    const first = await start(proxy.url);
    const ids = [await submit(first, "14155550121", 21), await submit(first, "14155550122", 22)];
    for (const id of ids) expect((await statusOf(first, id)).status).to.equal("queued");
    await first.kill();

    const second = await start(setup.chain.rpcUrl);
    const bundles = await allIncluded(second, ids);
    expect(await relayerNonce()).to.equal(bundles.size);
    expect(await executedOps()).to.equal(2);
  });

  it("killed after recording a Safe payout the node never got: the restart sends that same transaction, paid once", async () => {
    const api = async (service: ServiceProcess, method: string, route: string, body?: unknown) => {
      const res = await fetch(`${service.url}${route}`, {
        method,
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${setup.appToken}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as { address: string; txUuid: string; status: string; transactionHash: string | null };
    };
    const settled = async (service: ServiceProcess, safe: string, txUuid: string) => {
      let view = await api(service, "GET", `/v1/localhost/account/${safe}/tx/${txUuid}`);
      await until(async () => {
        view = await api(service, "GET", `/v1/localhost/account/${safe}/tx/${txUuid}`);
        return view.status === "included" || view.status === "failed";
      }, "the Safe request");
      return view;
    };
    const first = await start(setup.chain.rpcUrl);
    const created = await api(first, "POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    expect((await settled(first, created.address, created.txUuid)).status).to.equal("included");
    await (
      await (await setup.chain.provider.getSigner(0)).sendTransaction({ to: created.address, value: parseEther("1") })
    ).wait();
    await first.kill();

    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method) =>
      method === "eth_sendRawTransaction" ? "hang" : "forward",
    );
    proxies.push(proxy);
    const second = await start(proxy.url);
    const payee = Wallet.createRandom().address;
    const payout = await api(second, "POST", `/v1/localhost/account/${created.address}/payout/transfer`, {
      to: payee,
      amount: "12345",
    });
    await until(async () => proxy.seen.some((r) => r.method === "eth_sendRawTransaction"), "the broadcast");
    await second.kill();
    const held = proxy.seen.find((r) => r.method === "eth_sendRawTransaction")!.params[0] as string;
    expect(await setup.chain.provider.getBalance(payee)).to.equal(0n);

    const third = await start(setup.chain.rpcUrl);
    const done = await settled(third, created.address, payout.txUuid);
    expect(done.status).to.equal("included");
    // The transaction recorded before the crash is the one mined, and the payee was paid exactly once.
    expect(done.transactionHash).to.equal(keccak256(held));
    expect(await setup.chain.provider.getBalance(payee)).to.equal(12345n);
    expect(await relayerNonce()).to.equal(2);
  });

  it("replaces a bundle stuck in the mempool with higher fees, and only one version is mined", async () => {
    await setup.chain.provider.send("evm_setAutomine", [false]);
    const proxy = await startRpcProxy(setup.chain.rpcUrl);
    proxies.push(proxy);
    const service = await start(proxy.url, { TX_STUCK_AFTER_SECONDS: "1" });
    const id = await submit(service, "14155550131", 31);
    const broadcasts = () => proxy.seen.filter((r) => r.method === "eth_sendRawTransaction");
    // A replacement is a broadcast of other bytes (the same bytes again are only a rebroadcast).
    const replaced = () => new Set(broadcasts().map((b) => b.params[0])).size >= 2;
    await until(async () => replaced(), "a replacement");
    // The proxy sees the replacement before the node has it: mine only once the node holds it.
    const replacement = [...new Set(broadcasts().map((b) => b.params[0] as string))][1]!;
    await until(
      async () => (await setup.chain.provider.getTransaction(keccak256(replacement))) !== null,
      "the replacement in the node's pool",
    );
    await setup.chain.provider.send("evm_mine", []);
    await setup.chain.provider.send("evm_setAutomine", [true]);
    const final = (await statusOf(service, id, true)) as { status: string; transactionHash?: string };
    expect(final.status).to.equal("included");
    expect(await relayerNonce()).to.equal(1);
    expect(await executedOps()).to.equal(1);
    const mined = (await setup.chain.provider.getTransaction(final.transactionHash!))!;
    const firstVersion = Transaction.from(broadcasts()[0]!.params[0] as string);
    expect(mined.hash).to.not.equal(firstVersion.hash);
    expect(mined.maxFeePerGas! > firstVersion.maxFeePerGas!).to.equal(true);
  });
});
