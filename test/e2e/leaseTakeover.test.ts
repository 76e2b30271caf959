import { expect } from "chai";
import { createServer, type Server } from "node:http";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { sharedDatabaseApp } from "../helpers/sharedDatabaseApp";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!;
const LEASE_SECONDS = 2;
const USERS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds, failing with `what` after `ms`. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The holder's node connection, passed through as is, except that once armed, the first request `trap` picks freezes the
 * holder there: the process is SIGSTOPped (a GC pause, a frozen VM) with the request unanswered, and the request is
 * forwarded only once `resume()` has SIGCONTed it, so the holder carries on mid-step with what it read before.
 */
async function pausingRpcProxy(target: string, trap: (methods: string[]) => Promise<boolean>) {
  let pid: number | undefined;
  let armed = false;
  let release: (() => void) | undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let paused: () => void = () => undefined;
  const pausedAt = new Promise<void>((resolve) => (paused = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        const parsed = JSON.parse(body) as { method: string } | { method: string }[];
        const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method);
        if (armed && pid !== undefined && (await trap(methods))) {
          armed = false;
          process.kill(pid, "SIGSTOP");
          paused();
          await released;
        }
        const answer = await fetch(target, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        res.writeHead(answer.status, { "Content-Type": "application/json" }).end(await answer.text());
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    /** Sets the trap for `processId`, the process to freeze when it springs. */
    arm: (processId: number) => {
      pid = processId;
      armed = true;
    },
    pausedAt,
    /** SIGCONT, then the frozen request goes on to the node. */
    resume: () => {
      if (pid !== undefined) process.kill(pid, "SIGCONT");
      release!();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("Worker lease takeover from a paused holder (e2e, PostgreSQL)", function () {
  this.timeout(300_000);
  const running: ServiceProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.kill()));
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it("a holder frozen mid-replacement past its lease, then resumed: it records and sends nothing the other did not; each request included once, no nonce spent twice", async () => {
    const setup = await prepareServiceOnChain();
    cleanups.push(() => setup.chain.close());
    const provider = setup.chain.provider;
    const target: TestTarget = await new TestTarget__factory(await provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    // No blocks until the test mines: the first bundle stays pending, goes stuck and is being replaced.
    await provider.send("evm_setAutomine", [false]);

    const { database, repositories, env, appToken } = await sharedDatabaseApp(setup, "lease-takeover", {
      TX_LEASE_SECONDS: String(LEASE_SECONDS),
      TX_STUCK_AFTER_SECONDS: "1",
    });
    cleanups.push(() => database.close());

    // A reaches the chain through the proxy, which freezes it at its first fee look-up for a stuck bundle: inside
    // replaceBundle, after reading the bundle and before recording its replacement.
    const stuckBundle = async () =>
      (await database.db
        .selectFrom("bundles")
        .select("id")
        .where("status", "=", "pending")
        .where("created_at", "<", new Date(Date.now() - 1_000).toISOString())
        .executeTakeFirst()) !== undefined;
    const proxy = await pausingRpcProxy(
      setup.chain.rpcUrl,
      async (methods) => methods.includes("eth_maxPriorityFeePerGas") && (await stuckBundle()),
    );
    cleanups.push(() => proxy.close());
    // A waits for its node as long as it is frozen (a long RPC_TIMEOUT_MS): it wakes up to the answer, not a timeout.
    const a = await startServiceProcess({
      ...env,
      RPC_URL_LOCALHOST: proxy.url,
      RPC_TIMEOUT_MS: "120000",
      INSTANCE_ID: "instance-a",
    });
    running.push(a);
    await until("A to take the chain's lease", 20_000, async () => {
      const [lease] = await repositories.workerLeases.list();
      return lease?.holder.host === "instance-a";
    });
    const b = await startServiceProcess({ ...env, INSTANCE_ID: "instance-b" });
    running.push(b);

    const calls = (n: number) => [
      { to: target.target as string, data: target.interface.encodeFunctionData("record", [n]) },
    ];
    const user = (n: number) => `tel:1415666${String(n % USERS).padStart(4, "0")}`;
    const onA = serviceRequests(a.url, appToken, setup.userToken);
    const onB = serviceRequests(b.url, appToken, setup.userToken);
    const ids: string[] = [];
    for (let n = 0; n < 2 * USERS; n++) ids.push(await (n % 2 === 0 ? onA : onB).submit(user(n), calls(n)));
    proxy.arm(a.pid);

    await Promise.race([
      proxy.pausedAt,
      sleep(60_000).then(() => {
        throw new Error("A never replaced a stuck bundle");
      }),
    ]);
    // While A is frozen: more work, taken only by B once A's lease has run out.
    for (let n = 2 * USERS; n < 3 * USERS; n++) ids.push(await onB.submit(user(n), calls(n)));
    await until("B to take the lease over", (LEASE_SECONDS + 10) * 1000, async () => {
      const [lease] = await repositories.workerLeases.list();
      return lease?.holder.host === "instance-b";
    });
    await provider.send("evm_setIntervalMining", [300]);
    const finals = [];
    for (const id of ids) finals.push(await onB.final(id));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });

    // A wakes up mid-step, holding a bundle it read before its lease ran out, and runs for a while.
    const snapshot = async () => database.db.selectFrom("bundles").selectAll().orderBy("id").execute();
    const before = await snapshot();
    const nonceBefore = await provider.getTransactionCount(setup.relayer, "latest");
    proxy.resume();
    await sleep(LEASE_SECONDS * 2_000);
    expect(await snapshot(), "the resumed holder changed no bundle").to.deep.equal(before);
    expect(await provider.getTransactionCount(setup.relayer, "pending")).to.equal(nonceBefore);
    const [lease] = await repositories.workerLeases.list();
    expect(lease?.holder.host).to.equal("instance-b");

    // Each request ran exactly once on chain, under the userOpHash the service reported.
    const logs = await provider.getLogs({
      address: setup.deployment.contracts.entryPoint,
      topics: [USER_OP_EVENT.topicHash],
      fromBlock: 0,
    });
    const ran = logs.map((log) => entryPointInterface.parseLog(log)!.args.userOpHash as string);
    expect(ran).to.have.length(ids.length);
    expect(new Set(ran)).to.deep.equal(new Set(finals.map((final) => final.userOpHash)));
    // One relayer transaction per mined bundle, no nonce recorded twice.
    const mined = before.filter((row) => row.status === "mined");
    expect(nonceBefore).to.equal(mined.length);
    expect(new Set(before.map((row) => Number(row.nonce))).size).to.equal(before.length);

    // A, resumed and standing by, still accepts requests; B's worker includes them.
    const late = await onA.submit(user(0), calls(1_000));
    expect(await onB.final(late)).to.include({ status: "included", success: true });
  });
});
