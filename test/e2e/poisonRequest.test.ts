import { expect } from "chai";
import { concat, hexlify, randomBytes } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { KernelAccountFactory__factory, TestSimulationTrap__factory, type TestTarget } from "../../typechain-types";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";
import { storedRequests } from "../helpers/storedRequests";

/** How long the other requests may take from their submission to all being included. */
const OTHERS_DEADLINE_MS = 20_000;

describe("Poison requests (e2e: a malicious app tries to stall every request of the chain)", function () {
  this.timeout(180_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  const proxies: RpcProxy[] = [];
  let nextPhone = 14155560000;

  const start = async (rpcUrl: string, extra: Record<string, string> = {}) => {
    // Few, quick retries, so the culprit's attempts run out within the test.
    const service = await startServiceProcess(
      setup.env(rpcUrl, { TX_MAX_ATTEMPTS: "3", TX_RETRY_DELAY_MS: "200", ...extra }),
    );
    running.push(service);
    return service;
  };
  /** Submits one call to the target with `data` from a fresh user; returns the request id. */
  const submit = async (service: ServiceProcess, data: string) =>
    serviceRequests(service.url, setup.appToken, setup.userToken).submit(`tel:${nextPhone++}`, [
      { to: await target.getAddress(), data },
    ]);
  const record = (n: number) => target.interface.encodeFunctionData("record", [n]);
  const view = (service: ServiceProcess, id: string) =>
    serviceRequests(service.url, setup.appToken, setup.userToken).view(id);
  const until = async (check: () => Promise<boolean>, deadlineMs: number, what: string) => {
    const deadline = Date.now() + deadlineMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Submits `count` requests of other users and checks they are all included, each built once, in time. */
  const othersGoThrough = async (service: ServiceProcess, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await submit(service, record(1000 + i)));
    await until(
      async () => (await Promise.all(ids.map((id) => view(service, id)))).every((v) => v.status === "included"),
      OTHERS_DEADLINE_MS,
      `all ${count} other requests are included`,
    );
    for (const v of await Promise.all(ids.map((id) => view(service, id)))) expect(v).to.include({ success: true });
    // The culprit's failures cost them nothing: each was built and sent exactly once.
    expect(await attemptsOf(ids)).to.deep.equal(ids.map(() => 1));
  };
  /**
   * Waits until the culprit has failed with `code` and `attempts` stored: the failed builds before its last one
   * (TX_MAX_ATTEMPTS − 1 for a retried failure: the last failure ends it), 0 for one that fails at once.
   */
  const failsAlone = async (service: ServiceProcess, id: string, code: string, attempts: number) => {
    await until(async () => (await view(service, id)).status === "failed", 60_000, "the culprit fails");
    expect((await view(service, id)).error?.code).to.equal(code);
    expect(await attemptsOf([id])).to.deep.equal([attempts]);
  };
  /** Requests stored straight into the service's own database, and their stored attempts. */
  const stored = () => storedRequests(setup.database, setup.deployment.contracts.kernelFactory);
  const attemptsOf = (ids: string[]) => stored().attempts(ids);
  const storeRequest = (userIdInput: string, to: string, data: string) => stored().store(userIdInput, to, data);
  /** A request with one 400 KB call, as an older version accepted it (no call-data limit). */
  const storeUnsendable = async () =>
    storeRequest(
      `tel:${nextPhone++}`,
      await target.getAddress(),
      concat([record(666), hexlify(randomBytes(400 * 1024))]),
    );

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, proxies));

  it("a 400 KB call stored before the call-data limit existed fails alone at once, before and after a restart", async () => {
    // The defect as found: the node's simulation of this request errored with no revert data ("missing revert
    // data") and every request of the chain waited behind it, restart or not. Such a request is refused at
    // acceptance now, but one accepted before the upgrade is still in the database: it can never fit a bundle
    // transaction, so it fails without a node call, and the rest of the queue goes on.
    const culprit = await storeUnsendable();
    const first = await start(setup.chain.rpcUrl);
    await othersGoThrough(first, 20);
    await failsAlone(first, culprit, "CALL_DATA_TOO_LARGE", 0);

    // Durable: one stored while the service is down is there after the restart, and is got past again.
    await first.kill();
    const another = await storeUnsendable();
    const second = await start(setup.chain.rpcUrl);
    await othersGoThrough(second, 10);
    await failsAlone(second, another, "CALL_DATA_TOO_LARGE", 0);
  });

  it("requests at the call-data limit, many at once, are all included (the limit is one the bundler can send)", async () => {
    const first = await start(setup.chain.rpcUrl);
    const limit = 32 * 1024;
    const ids: string[] = [];
    // Non-zero bytes: the costliest call data a request may carry, in every bundle and simulation it goes into.
    for (let i = 0; i < 24; i++) ids.push(await submit(first, concat([record(i), hexlify(randomBytes(limit - 36))])));
    await until(
      async () => (await Promise.all(ids.map((id) => view(first, id)))).every((v) => v.status === "included"),
      60_000,
      "all requests at the limit are included",
    );
    expect(await attemptsOf(ids)).to.deep.equal(ids.map(() => 1));
  });

  it("requests whose simulation the node never answers or fails without revert data fail alone; an outage fails nobody", async () => {
    // The node hangs on any call carrying one culprit's operation, and answers "execution reverted" with no data
    // for any call carrying the other's (their call data hold these markers).
    const hangs = "5eed0f5eed0f5eed0f5eed0f";
    const reverts = "dead0fdead0fdead0fdead0f";
    let down = false;
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) => {
      if (down && method !== "eth_chainId") return "hang";
      if (method !== "eth_call") return "forward";
      const call = JSON.stringify(params);
      return call.includes(hangs) ? "hang" : call.includes(reverts) ? "revert" : "forward";
    });
    proxies.push(proxy);
    const first = await start(proxy.url, { RPC_TIMEOUT_MS: "1000" });
    const hanging = await submit(first, concat([record(7), `0x${hangs}`]));
    const reverting = await submit(first, concat([record(8), `0x${reverts}`]));
    await othersGoThrough(first, 20);
    await failsAlone(first, hanging, "SIMULATION_FAILED", 2);
    await failsAlone(first, reverting, "SIMULATION_FAILED", 2);

    // The same after a restart: culprits stored (durable) before the kill do not hold the restarted worker.
    const storedHanging = await submit(first, concat([record(9), `0x${hangs}`]));
    const storedReverting = await submit(first, concat([record(10), `0x${reverts}`]));
    await first.kill();
    const service = await start(proxy.url, { RPC_TIMEOUT_MS: "1000" });
    await othersGoThrough(service, 20);
    await failsAlone(service, storedHanging, "SIMULATION_FAILED", 2);
    await failsAlone(service, storedReverting, "SIMULATION_FAILED", 2);

    // Now the node hangs on everything for a while: nothing is charged, and all go through once it is back.
    down = true;
    const waiting: string[] = [];
    for (let i = 0; i < 3; i++) waiting.push(await submit(service, record(2000 + i)));
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    for (const id of waiting) expect((await view(service, id)).status).to.equal("queued");
    down = false;
    await until(
      async () => (await Promise.all(waiting.map((id) => view(service, id)))).every((v) => v.status === "included"),
      OTHERS_DEADLINE_MS,
      "the requests held while the node was down are included",
    );
    expect(await attemptsOf(waiting)).to.deep.equal(waiting.map(() => 1));
  });

  it("an operation that deploys another's wallet only under simulation cannot make that request fail or pay", async () => {
    const trap = await new TestSimulationTrap__factory(await setup.chain.provider.getSigner(0)).deploy();
    const victim = `tel:${nextPhone++}`;
    const createVictim = KernelAccountFactory__factory.createInterface().encodeFunctionData("createAccount", [
      walletSalt("kernel", parseUserId(victim)),
    ]);
    const springTrap = trap.interface.encodeFunctionData("trap", [
      setup.deployment.contracts.kernelFactory,
      createVictim,
    ]);
    // The malicious app's requests are older, so one simulation call validates the victim's operation after theirs
    // ran; all are due together when the service starts.
    const trapIds: string[] = [];
    for (let i = 0; i < 3; i++)
      trapIds.push(await storeRequest(`tel:${nextPhone++}`, await trap.getAddress(), springTrap));
    const victimId = await storeRequest(victim, await target.getAddress(), record(77));
    const service = await start(setup.chain.rpcUrl);
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    expect(await requests.final(victimId)).to.include({ status: "included", success: true });
    for (const id of trapIds) expect(await requests.final(id)).to.include({ status: "included", success: true });
    // The victim was charged for its own send only, not for a failure the trap staged in the simulation.
    expect(await attemptsOf([victimId])).to.deep.equal([1]);
  });
});
