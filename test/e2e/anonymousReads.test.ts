import { expect } from "chai";
import { Wallet } from "ethers";
import { request as httpRequest } from "node:http";
import type { TestTarget } from "../../typechain-types";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

/** Anonymous clients, each from its own loopback address (all of 127.0.0.0/8 reaches the service on 127.0.0.1). */
const CLIENTS = 24;
/** How long they hammer. */
const HAMMER_MS = 6000;
const MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11";

/** GET `path` from `localAddress`; the status, and the Retry-After and problem code of a 429. */
function get(url: string, path: string, localAddress: string) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; retryAfter?: string; code?: string }>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, localAddress, method: "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status !== 429) return resolve({ status });
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { code?: string };
        resolve({ status, retryAfter: res.headers["retry-after"], code: body.code });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

// Design invariant 10: nobody without credentials can exhaust us. The public reads (/health, /metrics without
// METRICS_TOKEN, the dust interface's GET /api/{address}) must not spend the RPC quota the transaction path needs.
describe("Anonymous reads against the RPC quota (e2e: a service process, its RPC through a counting proxy)", function () {
  this.timeout(180_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  const proxies: RpcProxy[] = [];

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, proxies));

  /** What the proxy saw during `ms` of `work` (the calls of the service's own worker included). */
  const callsDuring = async (proxy: RpcProxy, work: (until: number) => Promise<unknown>, ms: number) => {
    const before = proxy.seen.length;
    await work(Date.now() + ms);
    return proxy.seen.slice(before);
  };

  it("many anonymous clients hammer /health, /metrics and /api/{address}: the RPC calls they cause stay bounded and a transaction is still included", async () => {
    const proxy = await startRpcProxy(setup.chain.rpcUrl);
    proxies.push(proxy);
    const service = await startServiceProcess(
      setup.env(proxy.url, { DUST_CHAIN: "localhost", DUST_READS_PER_SECOND: "2" }),
    );
    running.push(service);
    // The quiet rate: what the service's own worker calls with nobody asking anything.
    const quiet = await callsDuring(proxy, (until) => new Promise((r) => setTimeout(r, until - Date.now())), HAMMER_MS);

    const answers = new Map<string, number>();
    const refusals: { retryAfter?: string; code?: string }[] = [];
    // Each client keeps one request in flight on each of the three reads, back to back.
    const hammer = (until: number) =>
      Promise.all(
        Array.from({ length: CLIENTS }, (_, i) => `127.0.${1 + (i >> 6)}.${2 + (i & 63)}`).flatMap((from) =>
          [() => "/health", () => "/metrics", () => `/api/${Wallet.createRandom().address}`].map(async (path) => {
            while (Date.now() < until) {
              const res = await get(service.url, path(), from);
              const key = `${path().slice(0, 5)} ${res.status}`;
              answers.set(key, (answers.get(key) ?? 0) + 1);
              if (res.status === 429) refusals.push(res);
            }
          }),
        ),
      );
    // A user's transaction submitted while the hammering goes on.
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const record = target.interface.encodeFunctionData("record", [7]);
    const [hammered, id] = await Promise.all([
      callsDuring(proxy, hammer, HAMMER_MS),
      requests.submit("tel:14155550199", [{ to: await target.getAddress(), data: record }]),
    ]);

    const dustReads = (calls: { method: string; params: unknown[] }[]) =>
      calls.filter((c) => c.method === "eth_call" && (c.params[0] as { to?: string }).to?.toLowerCase() === MULTICALL3)
        .length;
    const report = JSON.stringify(Object.fromEntries(answers));
    // The bound: the dust interface reads at most DUST_READS_PER_SECOND (2 here) wallets per chain a second (one
    // Multicall3 call each here: no tokens are listed), so at most 12 in 6 s and a window's edge, however many
    // clients ask; /health checks the chain at most once a second per process.
    expect(dustReads(hammered), report).to.be.at.most(16);
    const blockNumbers = (calls: { method: string }[]) => calls.filter((c) => c.method === "eth_blockNumber").length;
    expect(blockNumbers(hammered) - blockNumbers(quiet), report).to.be.at.most(20);
    // Those refused were told why and when to come back.
    for (const refusal of refusals) {
      expect(refusal.code).to.equal("RATE_LIMITED");
      expect(Number(refusal.retryAfter)).to.be.at.least(1);
    }
    // Every client got answers (the in-process node of this test shares its event loop with the clients, so a
    // health check may time out here: its status is not what is measured).
    expect((answers.get("/heal 200") ?? 0) + (answers.get("/heal 503") ?? 0), report).to.be.at.least(CLIENTS);

    // The transaction path was not starved.
    const deadline = Date.now() + 30_000;
    while ((await requests.view(id)).status !== "included") {
      expect(Date.now(), "the transaction is included within 30 s").to.be.below(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  it("one client asks for wallet after wallet across a cluster's processes: DUST_PER_IP_PER_MINUTE in total, then 429 RATE_LIMITED with Retry-After", async () => {
    const proxy = await startRpcProxy(setup.chain.rpcUrl);
    proxies.push(proxy);
    const service = await startServiceProcess(
      setup.env(proxy.url, { DUST_CHAIN: "localhost", DUST_PER_IP_PER_MINUTE: "4", WORKERS: "2" }),
    );
    running.push(service);
    const before = proxy.seen.length;
    // New connections each time: the cluster's processes take turns.
    const views = [];
    for (let i = 0; i < 10; i++)
      views.push(await get(service.url, `/api/${Wallet.createRandom().address}`, "127.0.9.9"));
    expect(views.map((v) => v.status)).to.deep.equal([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    for (const refused of views.slice(4)) {
      expect(refused.code).to.equal("RATE_LIMITED");
      expect(Number(refused.retryAfter)).to.be.within(1, 60);
    }
    const dustReads = proxy.seen
      .slice(before)
      .filter((c) => c.method === "eth_call" && (c.params[0] as { to?: string }).to?.toLowerCase() === MULTICALL3);
    expect(dustReads).to.have.length(4);
    // Another address is not affected.
    expect((await get(service.url, `/api/${Wallet.createRandom().address}`, "127.0.9.10")).status).to.equal(200);
  });
});
