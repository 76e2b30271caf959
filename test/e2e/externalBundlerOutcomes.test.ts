import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { openDatabase } from "../../gateway/storage/database";
import { CLOSE_WHEN_DUE_ATTEMPTS } from "../../gateway/transactions/settlement";
import type { WalletTxRecord } from "../../gateway/transactions/txRecord";
import { sponsorshipEnd } from "../../gateway/userop/sponsorship";
import { startTestStack } from "../helpers/localStack";
import { serviceRequests } from "../helpers/serviceRequests";
import { demoAppToken, phoneLogin } from "../helpers/stackClients";
import { serviceDatabase, withRepositories } from "../helpers/testDatabase";
import { type Outage, TestBundler } from "../helpers/testBundler";

const PHONE = "+14155550124";
const USER = "tel:14155550124";
/** Sends of one request to the bundler at most (TX_MAX_ATTEMPTS of this stack). */
const MAX_SENDS = 3;
/** How long after its last build's sponsorship ends a request is closed (a block stamped then may still come). */
const CLOSE_MARGIN_MS = 120_000;

const outages: readonly { readonly outage: Outage; readonly what: string }[] = [
  { outage: { http: 500 }, what: "answers HTTP 500" },
  { outage: { http: 502 }, what: "answers HTTP 502 (a proxy whose bundler is down)" },
  { outage: { http: 429 }, what: "answers HTTP 429 (rate limited)" },
  { outage: "silence", what: "never answers" },
  { outage: "hangUp", what: "closes the connection" },
];

describe("External bundler outcomes (e2e: a bundler that fails over HTTP, goes silent or hangs up)", () => {
  let bundler: TestBundler;
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let target: TestTarget;
  let database: string;
  let requests: ReturnType<typeof serviceRequests>;

  const record = (number: number) => ({
    to: target.target as string,
    data: target.interface.encodeFunctionData("record", [number]),
  });
  /** How often the wallet's call `record(number)` executed on chain. */
  const executions = async (wallet: string, number: number) =>
    (await target.queryFilter(target.filters.Recorded(undefined, wallet))).filter(
      (log) => log.args.number === BigInt(number),
    ).length;
  const stored = (id: string) =>
    withRepositories(database, async (r) => (await r.transactions.find(id)) as WalletTxRecord);
  /** Submits `record(number)`, waits until it is final; with what the bundler received and sent meanwhile. */
  const send = async (number: number) => {
    const [received, bundles] = [bundler.received.length, bundler.bundles.length];
    const result = await requests.final(await requests.submit(USER, [record(number)]));
    return { result, received: bundler.received.slice(received), bundles: bundler.bundles.slice(bundles) };
  };
  /** Polls the stored request until `done` holds of it (or fails after `ms`). */
  const until = async (id: string, done: (tx: WalletTxRecord) => boolean, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (let tx = await stored(id); ; tx = await stored(id)) {
      if (done(tx)) return tx;
      if (Date.now() > deadline) throw new Error(`request ${id} still ${tx.status} after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async () => {
    bundler = await TestBundler.start();
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-"));
    stack = await startTestStack(dataDir, {
      // Short delays, so that every bound below is reached within a test; the RPC timeout is a silent bundler's.
      env: {
        BUNDLER_URL_LOCALHOST: bundler.url,
        TX_STUCK_AFTER_SECONDS: "1",
        TX_RETRY_DELAY_MS: "100",
        TX_MAX_ATTEMPTS: String(MAX_SENDS),
        RPC_TIMEOUT_MS: "2000",
      },
    });
    database = await serviceDatabase(dataDir);
    await bundler.attach(stack.rpcUrl, stack.deployment.contracts.entryPoint);
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    target = await new TestTarget__factory(await chain.getSigner(0)).deploy();
    const appToken = await demoAppToken(stack);
    const userToken = await phoneLogin(stack, PHONE);
    requests = serviceRequests(stack.apiUrl, appToken, async () => userToken);
  });
  afterEach(() => {
    bundler.outage = undefined;
    bundler.faults.length = 0;
  });
  after(async () => {
    chain?.destroy();
    await stack?.close();
    await bundler?.close();
  });

  outages.forEach(({ outage, what }, i) => {
    it(`a bundler that ${what} once is sent the operation again, which runs once`, async () => {
      bundler.faults.push(outage);
      const { result, received, bundles } = await send(100 + i);
      expect(result).to.include({ status: "included", success: true, error: null, userOpHash: received[1] });
      expect([received.length, bundles]).to.deep.equal([2, [result.transactionHash]]);
      expect(await executions(result.sender, 100 + i)).to.equal(1);
    });
  });

  it("a bundler that took the operation and answered HTTP 500 is not sent it again: it ran, once", async () => {
    bundler.faults.push({ http: 500, afterSubmitting: true });
    const { result, received, bundles } = await send(200);
    expect(result).to.include({ status: "included", success: true, transactionHash: bundles[0] });
    expect([received.length, bundles.length]).to.deep.equal([1, 1]);
    expect(await executions(result.sender, 200)).to.equal(1);
  });

  it("a bundler that stops answering after taking the operation holds nothing up: it is found on chain", async () => {
    bundler.faults.push("hide");
    const before = bundler.received.length;
    const id = await requests.submit(USER, [record(300)]);
    await until(id, () => bundler.received.length > before);
    bundler.outage = { http: 500 };
    const result = await requests.final(id);
    expect(result).to.include({ status: "included", success: true, transactionHash: bundler.bundles.at(-1) });
    expect(bundler.received.length - before).to.equal(1);
    expect(await executions(result.sender, 300)).to.equal(1);
  });

  outages
    .filter(({ outage }) => typeof outage !== "object" || outage.http === 500)
    .forEach(({ outage, what }, i) => {
      it(`a bundler that ${what} for ever is sent a request ${MAX_SENDS} times, no more; it then fails BUNDLER_UNAVAILABLE`, async () => {
        bundler.outage = outage;
        const before = bundler.received.length;
        const id = await requests.submit(USER, [record(400 + i)]);
        // Out of sends: closed once no build of it can run any more (the bundler may hold the last one).
        const closing = await until(id, (tx) => tx.attempts === CLOSE_WHEN_DUE_ATTEMPTS);
        expect(bundler.received.slice(before)).to.have.length(MAX_SENDS).and.include(closing.userOpHash);
        expect(closing).to.include({ status: "queued" });
        expect(closing.error?.code).to.equal("BUNDLER_UNAVAILABLE");
        const lastBuildEnds = sponsorshipEnd(closing.userOp!.paymasterAndData)! * 1000;
        expect(Date.parse(closing.nextAttemptAt)).to.equal(lastBuildEnds + CLOSE_MARGIN_MS);
        expect(await requests.view(id)).to.deep.include({ status: "queued", error: closing.error });
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(bundler.received.length - before).to.equal(MAX_SENDS);

        // Time passes: the last build's sponsorship has ended (the close is moved to now, rather than waited for).
        const opened = await openDatabase(database);
        try {
          const now = new Date().toISOString();
          await opened.db.updateTable("transactions").set({ next_attempt_at: now }).where("id", "=", id).execute();
        } finally {
          await opened.close();
        }
        const result = await requests.final(id);
        expect(result).to.deep.include({ status: "failed", error: closing.error, userOpHash: closing.userOpHash });
        expect(bundler.received.length - before).to.equal(MAX_SENDS);
        expect(await executions(result.sender, 400 + i)).to.equal(0);
      });
    });
});
