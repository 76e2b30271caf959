/**
 * Faults of what the service stands on: the chain's node going away and coming back (the service in its own
 * process), and storage that refuses writes (read-only, full, locked by another writer). Crashes of the service
 * itself (SIGKILL at each point of a bundle's life) are in test/e2e/crashRecovery.test.ts.
 */
import { expect } from "chai";
import BetterSqlite3 from "better-sqlite3";
import { Wallet, parseEther } from "ethers";
import { sql } from "kysely";
import request, { type Response } from "supertest";
import { safeInterface } from "../../gateway/safe/encoding/safeArtifacts";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { type SwitchableRpc, startSwitchableRpc } from "./lib/faultsRpcOutage";
import { STORAGE_TEST_PROVIDER, buildStorageFaultApp } from "./lib/faultsStorageApp";
import { bySoak } from "./soak";

const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
const EXECUTION_SUCCESS = safeInterface.getEvent("ExecutionSuccess")!.topicHash;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Json = Record<string, unknown>;

describe("Faults: the chain's node goes away and comes back (e2e: the service in its own process)", function () {
  // How long the node stays away: half of it refusing connections, half accepting and never answering.
  const OUTAGE_MS = bySoak(5_000, 40_000);
  this.timeout(OUTAGE_MS + 90_000);
  let setup: Awaited<ReturnType<typeof prepareServiceOnChain>>;
  let target: TestTarget;
  let rpc: SwitchableRpc;
  let service: ServiceProcess;

  /** One API call, timed: every answer during the outage must come back promptly. */
  const api = async (method: "GET" | "POST", route: string, body?: unknown) => {
    const started = Date.now();
    const res = await fetch(`${service.url}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${setup.appToken}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json, ms: Date.now() - started };
  };
  const submit = async (phone: string, number: number) => {
    const userId = `tel:${phone}`;
    const res = await api("POST", "/v1/kernel/tx", {
      userId,
      chain: "localhost",
      to: [await target.getAddress()],
      value: ["0"],
      data: [target.interface.encodeFunctionData("record", [number])],
      auth: await setup.userToken(userId),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return { route: `/v1/kernel/tx/${String(res.body.id)}`, ms: res.ms };
  };
  const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  };
  const isFinal = (status: unknown) => status === "included" || status === "failed";
  const chainLogs = (topic: string, address?: string) =>
    setup.chain.provider.getLogs({ ...(address ? { address } : {}), topics: [topic], fromBlock: 0 });

  before(async () => {
    setup = await prepareServiceOnChain();
    target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    rpc = await startSwitchableRpc(setup.chain.rpcUrl);
    service = await startServiceProcess(setup.env(rpc.url));
  });
  after(async () => {
    await service?.kill();
    await rpc?.close();
    await setup?.chain.close();
  });

  it("keeps accepting and answering while the node is away, reports it in /health, and then completes every request exactly once", async () => {
    // A funded Safe, created through the relayer while the node is up.
    const created = await api("POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    expect(created.status).to.equal(202);
    const safe = String(created.body.address);
    const safeRoute = (txUuid: unknown) => `/v1/localhost/account/${safe}/tx/${String(txUuid)}`;
    await until(async () => (await api("GET", safeRoute(created.body.txUuid))).body.status === "included", "the Safe");
    const funder = await setup.chain.provider.getSigner(0);
    await (await funder.sendTransaction({ to: safe, value: parseEther("1") })).wait();

    // A bundle in the mempool when the node goes away; the blocks stop until the node is back.
    await setup.chain.provider.send("evm_setAutomine", [false]);
    const before = [await submit("14155550201", 1), await submit("14155550202", 2), await submit("14155550203", 3)];
    await until(async () => (await api("GET", before[0]!.route)).body.status === "submitted", "the first bundle");

    // The node goes away: connections refused.
    const wentAway = Date.now();
    await rpc.set("refuse");
    // The chain goes on without the service seeing it: the bundle in flight is mined meanwhile.
    await setup.chain.provider.send("evm_mine", []);
    const during = [await submit("14155550204", 4), await submit("14155550205", 5), await submit("14155550206", 6)];
    const payee = Wallet.createRandom().address;
    const payout = await api("POST", `/v1/localhost/account/${safe}/payout/transfer`, { to: payee, amount: "12345" });
    expect(payout.status, JSON.stringify(payout.body)).to.equal(202);
    const wallets = [...before, ...during];
    const routes = [...wallets.map((w) => w.route), safeRoute(payout.body.txUuid)];

    /** Nothing is lost or given up on while the node is away: every request is still pending, and reads answer. */
    const stillPending = async () => {
      for (const route of routes) {
        const view = await api("GET", route);
        expect(view.status).to.equal(200);
        expect(view.body.status, route).to.be.oneOf(["queued", "submitted"]);
        expect(view.ms).to.be.below(2_000);
      }
    };
    /** /health says the chain is down (and the database is not). */
    const healthSaysChainDown = async () => {
      const health = await api("GET", "/health");
      expect(health.status).to.equal(503);
      expect(health.body).to.deep.include({ status: "degraded" });
      const checks = health.body.checks as { database: Json; chains: Record<string, Json> };
      expect(checks.database.status).to.equal("ok");
      expect(checks.chains.localhost!.status).to.equal("failing");
      return health.ms;
    };
    const refusedHealthMs = await healthSaysChainDown();
    await stillPending();
    await sleep(Math.max(0, wentAway + OUTAGE_MS / 2 - Date.now()));

    // Still away, now silent: connections are accepted and never answered (the RPC timeout ends each call).
    await rpc.set("hang");
    const late = await submit("14155550207", 7);
    wallets.push(late);
    routes.push(late.route);
    const hungHealthMs = await healthSaysChainDown();
    await stillPending();
    await sleep(Math.max(0, wentAway + OUTAGE_MS - Date.now()));
    for (const { ms } of [...during, late, payout]) expect(ms, "an answer while the node was away").to.be.below(2_000);

    // The node comes back.
    await setup.chain.provider.send("evm_setAutomine", [true]);
    const cameBack = Date.now();
    await rpc.set("up");
    const finals = new Map<string, Json>();
    await until(
      async () => {
        for (const route of routes.filter((r) => !finals.has(r))) {
          const view = await api("GET", route);
          if (isFinal(view.body.status)) finals.set(route, view.body);
        }
        return finals.size === routes.length;
      },
      "every request to be final after the node came back",
      45_000,
    );
    const recoveredMs = Date.now() - cameBack;
    for (const [route, final] of finals) expect(final, route).to.include({ status: "included" });
    for (const { route } of wallets) expect(finals.get(route)).to.include({ success: true });
    expect((await api("GET", "/health")).status).to.equal(200);

    // Exactly once: one UserOperationEvent per wallet request, one ExecutionSuccess (the payout) on the Safe, the
    // payee paid once, and every relayer transaction is one that carried them (plus the Safe's creation).
    expect(await chainLogs(USER_OP_EVENT, setup.deployment.contracts.entryPoint)).to.have.length(wallets.length);
    expect(await chainLogs(EXECUTION_SUCCESS, safe)).to.have.length(1);
    expect(await setup.chain.provider.getBalance(payee)).to.equal(12345n);
    const safeCreation = (await api("GET", safeRoute(created.body.txUuid))).body.transactionHash;
    const relayerTxs = new Set([safeCreation, ...[...finals.values()].map((final) => final.transactionHash)]);
    expect(await setup.chain.provider.getTransactionCount(setup.relayer, "latest")).to.equal(relayerTxs.size);
    console.log(
      [
        "RPC outage figures:",
        `  outage ${((cameBack - wentAway) / 1000).toFixed(1)} s (refused, then hanging); ${routes.length} requests pending through it`,
        `  answers while away: POST ≤ ${Math.max(...[...during, late, payout].map((r) => r.ms))} ms; /health ${refusedHealthMs} ms refused, ${hungHealthMs} ms hanging (503)`,
        `  node back → every request included: ${(recoveredMs / 1000).toFixed(1)} s; relayer transactions ${relayerTxs.size}`,
      ].join("\n"),
    );
  });
});

describe("Faults: storage that refuses writes (API: the real app on a SQLite file whose connection the test breaks)", () => {
  const TARGET = "0x000000000000000000000000000000000000dEaD";
  let s: Awaited<ReturnType<typeof buildStorageFaultApp>>;
  beforeEach(async () => {
    s = await buildStorageFaultApp();
  });
  afterEach(async () => {
    await s.close();
  });

  const submit = (key: string, data = "0x") =>
    request(s.app)
      .post("/v1/kernel/tx")
      .set({ Authorization: `Bearer ${s.token}`, "Idempotency-Key": key })
      .send({
        userId: `${STORAGE_TEST_PROVIDER}:alice`,
        chain: "localhost",
        to: [TARGET],
        value: ["0"],
        data: [data],
        auth: "",
      });
  const storedRequests = async () =>
    (await sql<{ n: number }>`select count(*) as n from transactions`.execute(s.db)).rows[0]!.n;
  const integrity = async () =>
    (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(s.db)).rows.map((r) => r.integrity_check);
  const pragma = (setting: string) => sql.raw(`pragma ${setting}`).execute(s.db);
  /** The exact problem: 503, Retry-After, the stable code, nothing of the database's own words. */
  const expectStorageUnavailable = (res: Response, instance: string) => {
    expect(res.status, res.text).to.equal(503);
    expect(res.headers["retry-after"]).to.equal("5");
    expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Storage unavailable",
      status: 503,
      code: "STORAGE_UNAVAILABLE",
      detail: "The service could not read or write its storage; try again later",
      instance,
      requestId: res.headers["x-request-id"],
    });
    expect(res.text).to.not.match(/sqlite|readonly|disk/i);
  };

  it("read-only: a write answers 503 STORAGE_UNAVAILABLE, reads still answer, nothing is half-written, and the same request succeeds once writable", async () => {
    const earlier = await submit("before");
    expect(earlier.status).to.equal(202);

    await pragma("query_only = on");
    expectStorageUnavailable(await submit("while-read-only"), "/v1/kernel/tx");
    // Phone login stores the code before sending it: no write, no SMS.
    const login = await request(s.app).post("/functions/v1/signInWithOTP").send({ phone: "+14155552671" });
    expectStorageUnavailable(login, "/functions/v1/signInWithOTP");
    expect(s.sms.sent).to.have.length(0);
    // Reads: a request's status, the resolver, the health check.
    const status = await request(s.app)
      .get(`/v1/kernel/tx/${earlier.body.id}`)
      .set("Authorization", `Bearer ${s.token}`);
    expect([status.status, status.body.status]).to.deep.equal([200, "queued"]);
    const resolved = await request(s.app).post("/v1/resolver").send({ userIds: "github:alice" });
    expect(resolved.status).to.equal(200);
    const health = await request(s.app).get("/health");
    expect(health.body.checks.database.status).to.equal("ok");
    expect(await storedRequests()).to.equal(1);
    expect(await integrity()).to.deep.equal(["ok"]);

    await pragma("query_only = off");
    const retried = await submit("while-read-only");
    expect(retried.status).to.equal(202);
    const again = await submit("while-read-only");
    expect([again.status, again.body.id, again.headers["idempotent-replayed"]]).to.deep.equal([
      202,
      retried.body.id,
      "true",
    ]);
    expect(await storedRequests()).to.equal(2);
  });

  it("disk full: every 202 is stored, every 503 is not (group commits included), and the refused requests succeed once there is room", async () => {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(s.db);
    await pragma(`max_page_count = ${rows[0]!.page_count}`);
    // About 1 KB per request, four at a time (one group commit), until the file can grow no more.
    const data = `0x${"ab".repeat(1000)}`;
    const accepted: string[] = [];
    const refused: string[] = [];
    for (let round = 0; refused.length === 0; round++) {
      expect(round, "the database never filled up").to.be.below(100);
      const keys = [0, 1, 2, 3].map((i) => `full-${round}-${i}`);
      const answers = await Promise.all(keys.map((key) => submit(key, data)));
      answers.forEach((res, i) => {
        if (res.status === 202) accepted.push(res.body.id as string);
        else {
          expectStorageUnavailable(res, "/v1/kernel/tx");
          refused.push(keys[i]!);
        }
      });
    }
    // Accepted means durable; refused means not stored.
    expect(await storedRequests()).to.equal(accepted.length);
    for (const id of accepted) {
      const res = await request(s.app).get(`/v1/kernel/tx/${id}`).set("Authorization", `Bearer ${s.token}`);
      expect(res.status).to.equal(200);
    }
    expect(await integrity()).to.deep.equal(["ok"]);

    await pragma("max_page_count = 1073741823");
    for (const key of refused) expect((await submit(key, data)).status).to.equal(202);
    expect(await storedRequests()).to.equal(accepted.length + refused.length);
  });

  it("another writer holds the lock past the busy timeout: 503 STORAGE_UNAVAILABLE, reads still answer, then the request succeeds", async () => {
    const earlier = await submit("before");
    await pragma("busy_timeout = 100");
    const other = new BetterSqlite3(s.file);
    try {
      other.exec("begin immediate");
      expectStorageUnavailable(await submit("while-locked"), "/v1/kernel/tx");
      const status = await request(s.app)
        .get(`/v1/kernel/tx/${earlier.body.id}`)
        .set("Authorization", `Bearer ${s.token}`);
      expect(status.status).to.equal(200);
      other.exec("rollback");
    } finally {
      other.close();
    }
    expect((await submit("while-locked")).status).to.equal(202);
    expect(await storedRequests()).to.equal(2);
  });
});
