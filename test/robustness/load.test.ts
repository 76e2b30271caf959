/**
 * A bounded mixed load on the local stack over loopback: resolver lookups of random ids, CCIP-read lookups (a new
 * name each time, and one lookup repeated), transaction submissions (a demo-token mint each) and status reads, 16 in
 * flight, for 10 s (60 s under SOAK=1). Every answer must be the expected one, every transaction must end included
 * exactly once, and the process's memory must not run away. The figures are printed in one block.
 */
import { expect } from "chai";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Interface, JsonRpcProvider, isHexString } from "ethers";
import pino from "pino";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { type LocalStack, startLocalStack } from "../../scripts/localStack/startLocalStack";
import { type BenchLookup, LookupSource, benchLookup, lookupPath } from "../../bench/lib/ccipLookups";
import { demoAppToken } from "../helpers/stackClients";
import { KeepAliveClient } from "../../bench/lib/keepAliveClient";
import { type LoadAnswer, type LoadRequest, runMixedLoad } from "./lib/loadMix";
import { SOAK, bySoak } from "./soak";

const DURATION_MS = bySoak(10_000, 60_000);
const CONCURRENCY = 16;
/** Submissions offered per second: about what the in-process chain includes, so the queue stays short. */
const TX_PER_SECOND = 15;
/** Wallets the submissions go to, in turn (each one's first request also deploys it). */
const WALLETS = 48;
/** Growth of the resident set allowed over the run: the chain keeps every block in memory, so some is expected. */
const RSS_GROWTH_LIMIT_MB = bySoak(300, 600);
const MINT = new Interface([
  "function mint(address to, uint256 amount)",
  "function balanceOf(address) view returns (uint256)",
]);
const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
const MB = 1024 * 1024;

const parse = (answer: LoadAnswer) => JSON.parse(answer.text) as Record<string, unknown>;
const expectStatus = (answer: LoadAnswer, status: number) => {
  if (answer.status !== status)
    throw new Error(`answered ${answer.status}, not ${status}: ${answer.text.slice(0, 300)}`);
};
/**
 * A full garbage collection: `gc` when node runs with --expose-gc, else the same function obtained at run time (as
 * leak detectors do), so that the memory figures count what is live rather than what the collector has not reached.
 */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
let collectGarbage: (() => void) | undefined;
/** RSS after a full collection. */
const settledRss = () => {
  (collectGarbage ??= collector())();
  return process.memoryUsage().rss;
};

describe("Load: a bounded mixed load on the local stack (e2e over loopback HTTP)", function () {
  this.timeout(DURATION_MS + 150_000);
  let stack: LocalStack;
  let chain: JsonRpcProvider;

  before(async () => {
    stack = await startLocalStack({
      host: "127.0.0.1",
      rpcPort: 0,
      apiPort: 0,
      dataDir: mkdtempSync(path.join(tmpdir(), "idwallet-load-")),
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
      // One client address sends everything here; the gateway's per-address limit guards against something else.
      env: {
        CCIP_RATE_LIMIT_PER_MINUTE: "100000000",
        CCIP_ANSWERS_PER_MINUTE: "100000000",
        CCIP_ANSWERS_PER_NETWORK_PER_MINUTE: "100000000",
        RESOLVER_ANONYMOUS_PER_MINUTE: "100000000",
      },
    });
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
  });
  after(async () => {
    chain?.destroy();
    await stack?.close();
  });

  it("answers every request as expected, includes every transaction once, and keeps its memory", async () => {
    const token = await demoAppToken(stack);
    const bearer = { Authorization: `Bearer ${token}` };
    const factory = stack.deployment.contracts.kernelFactory;
    const resolver = stack.deployment.contracts.ensResolver;
    const erc20 = stack.demoTokens.erc20;
    const wallets = Array.from({ length: WALLETS }, (_, i) => {
      const userId = `demo:load-${i}`;
      return { userId, address: deriveWalletAddress(factory, "kernel", parseUserId(userId)), minted: 0 };
    });
    const accepted: string[] = [];
    const distinct = new LookupSource();
    const repeated = benchLookup("alice.github.idwallet.eth", "github:alice", { kind: "addr" });
    /** A signed answer; for an address record, one that carries the name's wallet. */
    const ccipCheck = (lookup: BenchLookup) => {
      const wallet =
        lookup.record.kind === "text"
          ? undefined
          : deriveWalletAddress(factory, "kernel", parseUserId(lookup.userId)).slice(2).toLowerCase();
      return (answer: LoadAnswer) => {
        expectStatus(answer, 200);
        const { data } = parse(answer);
        if (typeof data !== "string" || !isHexString(data) || data.length < 200) throw new Error("no signed answer");
        if (wallet && !data.includes(wallet)) throw new Error(`${lookup.name}: not its wallet`);
      };
    };
    const repeatedCheck = ccipCheck(repeated);

    const resolve = (): LoadRequest => {
      const userId =
        Math.random() < 0.5
          ? `github:load-${randomBytes(6).toString("hex")}`
          : `tel:1555${String(randomInt(10_000_000)).padStart(7, "0")}`;
      return {
        kind: "resolver",
        method: "POST",
        path: "/v1/resolver",
        body: { userIds: userId },
        check: (answer) => {
          expectStatus(answer, 200);
          const [user] = parse(answer).users as { accountAddress: string }[];
          const expected = deriveWalletAddress(factory, "kernel", parseUserId(userId));
          if (user?.accountAddress !== expected) throw new Error(`${userId} resolved to ${user?.accountAddress}`);
        },
      };
    };
    let submitted = 0;
    const submit = (): LoadRequest => {
      const wallet = wallets[submitted++ % WALLETS]!;
      return {
        kind: "tx submit",
        method: "POST",
        path: "/v1/kernel/tx",
        headers: bearer,
        body: {
          userId: wallet.userId,
          chain: "localhost",
          to: [erc20],
          value: ["0"],
          data: [MINT.encodeFunctionData("mint", [wallet.address, 1n])],
          auth: "",
        },
        check: (answer) => {
          expectStatus(answer, 202);
          const body = parse(answer);
          if (body.status !== "queued") throw new Error(`accepted as ${String(body.status)}`);
          accepted.push(String(body.id));
          wallet.minted++;
        },
      };
    };
    const status = (): LoadRequest => {
      const id = accepted[Math.floor(Math.random() * accepted.length)]!;
      return {
        kind: "tx status",
        method: "GET",
        path: `/v1/kernel/tx/${id}`,
        headers: bearer,
        check: (answer) => {
          expectStatus(answer, 200);
          const view = parse(answer);
          if (view.id !== id || !["queued", "submitted", "included"].includes(String(view.status))) {
            throw new Error(`${id} shows ${answer.text.slice(0, 300)}`);
          }
          if (view.status === "included" && view.success !== true) throw new Error(`${id} included without success`);
        },
      };
    };
    // Of every 10 requests: 3 resolver, 2 + 2 CCIP, 1 submission (within its rate, else a resolver), 2 status reads.
    let turn = 0;
    let loadStarted = 0;
    const next = (): LoadRequest => {
      const slot = turn++ % 10;
      if (slot <= 2) return resolve();
      if (slot <= 4) {
        const lookup = distinct.nextLookup();
        const check = ccipCheck(lookup);
        return { kind: "ccip distinct", method: "GET", path: lookupPath(resolver, lookup.callData), check };
      }
      if (slot <= 6) {
        return {
          kind: "ccip repeated",
          method: "GET",
          path: lookupPath(resolver, repeated.callData),
          check: repeatedCheck,
        };
      }
      if (slot === 7) {
        const due = ((performance.now() - loadStarted) / 1000) * TX_PER_SECOND;
        return submitted < due ? submit() : resolve();
      }
      return accepted.length > 0 ? status() : resolve();
    };

    const client = new KeepAliveClient(stack.apiUrl, CONCURRENCY);
    try {
      const rssStart = settledRss();
      const heapStart = process.memoryUsage().heapUsed;
      loadStarted = performance.now();
      const run = await runMixedLoad(client, { durationMs: DURATION_MS, concurrency: CONCURRENCY, next });
      expect(run.firstErrors, `${run.errors} wrong answers`).to.deep.equal([]);

      // Every accepted submission ends included, with success.
      const drainStarted = performance.now();
      const pending = [...accepted];
      const lanes = Array.from({ length: 8 }, async () => {
        for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
          for (;;) {
            const answer = await client.send("GET", `/v1/kernel/tx/${id}?wait=true`, undefined, bearer);
            expectStatus(answer, 200);
            const view = parse(answer);
            if (view.status === "included" || view.status === "failed") {
              expect(view, id).to.include({ status: "included", success: true });
              break;
            }
          }
        }
      });
      await Promise.all(lanes);
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      const includedPerSecond = accepted.length / ((performance.now() - loadStarted) / 1000);

      // Exactly once: one UserOperationEvent per submission, and each wallet holds one token unit per submission.
      const ops = await chain.getLogs({
        address: stack.deployment.contracts.entryPoint,
        topics: [USER_OP_EVENT],
        fromBlock: 0,
      });
      expect(ops).to.have.length(accepted.length);
      for (const wallet of wallets) {
        const balance = await chain.call({ to: erc20, data: MINT.encodeFunctionData("balanceOf", [wallet.address]) });
        expect(BigInt(balance), wallet.userId).to.equal(BigInt(wallet.minted));
      }

      const rssEnd = settledRss();
      const heapEnd = process.memoryUsage().heapUsed;
      const lines = Object.entries(run.kinds).map(
        ([kind, k]) =>
          `  ${kind.padEnd(14)} ${String(k.count).padStart(7)}  p50 ${k.p50Ms.toFixed(1).padStart(6)} ms  p99 ${k.p99Ms
            .toFixed(1)
            .padStart(6)} ms  max ${k.maxMs.toFixed(0).padStart(5)} ms`,
      );
      console.log(
        [
          `Load figures (${SOAK ? "soak" : "fast"}: ${run.seconds.toFixed(1)} s, ${CONCURRENCY} in flight, stack in this process):`,
          ...lines,
          `  throughput     ${run.requests} requests, ${run.requestsPerSecond.toFixed(0)} requests/s; wrong answers ${run.errors}`,
          `  transactions   ${accepted.length} accepted, all included once; drained ${drainSeconds.toFixed(1)} s after the load, ${includedPerSecond.toFixed(1)} included/s overall`,
          `  RSS            start ${(rssStart / MB).toFixed(0)} MB, end ${(rssEnd / MB).toFixed(0)} MB (after a full gc); heap used ${(heapStart / MB).toFixed(0)} → ${(heapEnd / MB).toFixed(0)} MB`,
        ].join("\n"),
      );
      expect(accepted.length).to.be.above(0);
      expect(rssEnd - rssStart, "RSS growth").to.be.below(RSS_GROWTH_LIMIT_MB * MB);
    } finally {
      client.close();
    }
  });
});
