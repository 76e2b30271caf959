import { expect } from "chai";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createChainReachability } from "../../../gateway/chains/chainReachability";
import {
  ChainMismatchError,
  ChainUnreachableError,
  createChainClients,
  verifyChainIds,
} from "../../../gateway/chains/clients";
import type { HealthReport } from "../../../gateway/chains/health";

const START = new Date("2026-11-22T12:00:00.000Z");
const LATER = new Date("2026-11-22T12:05:00.000Z");

/** A health check whose chain `localhost` is up or down as `state.up` says, counting its runs; `state.slow` delays it. */
function fakeCheck(state: { up: boolean; runs: number; slow?: Promise<void> }): () => Promise<HealthReport> {
  return async () => {
    state.runs++;
    await state.slow;
    const status = state.up ? ("ok" as const) : ("failing" as const);
    return {
      status: state.up ? "ok" : "degraded",
      checks: { database: { status: "ok", latencyMs: 0 }, chains: { localhost: { status, latencyMs: 1 } } },
    };
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("chains' last known reachability (GET /v1/networks answers from it)", () => {
  it("seeded by start-up's chain id check: reachable from then, answered from memory with no check per caller", async () => {
    const state = { up: true, runs: 0 };
    const reachability = createChainReachability({
      check: fakeCheck(state),
      clock: () => LATER,
      maxAgeMs: 60_000,
      verified: { chains: ["localhost"], at: START },
    });
    for (let i = 0; i < 100; i++) {
      expect(reachability.lastSeen().get("localhost")).to.deep.equal({ reachable: true, checkedAt: START });
    }
    await settle();
    expect(state.runs).to.equal(0);
    // A health check (GET /health runs through it) that finds the node down is what the next caller sees.
    state.up = false;
    expect((await reachability.check()).status).to.equal("degraded");
    expect(reachability.lastSeen().get("localhost")).to.deep.equal({ reachable: false, checkedAt: LATER });
  });

  it("once the last check is older than the maximum age, one check starts in the background, however many callers", async () => {
    let release!: () => void;
    const state = { up: false, runs: 0, slow: new Promise<void>((resolve) => (release = resolve)) };
    const reachability = createChainReachability({
      check: fakeCheck(state),
      clock: () => LATER,
      maxAgeMs: 20,
      verified: { chains: ["localhost"], at: START },
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Callers during the slow check get the last known state at once, and start no second check.
    for (let i = 0; i < 50; i++) expect(reachability.lastSeen().get("localhost")?.reachable).to.equal(true);
    expect(state.runs).to.equal(1);
    release();
    await settle();
    expect(reachability.lastSeen().get("localhost")).to.deep.equal({ reachable: false, checkedAt: LATER });
    expect(state.runs).to.equal(1);
  });

  it("not checked yet (no start-up check): nothing known, and the first caller starts a check", async () => {
    const state = { up: true, runs: 0 };
    const reachability = createChainReachability({ check: fakeCheck(state), clock: () => LATER, maxAgeMs: 60_000 });
    expect(reachability.lastSeen().size).to.equal(0);
    await settle();
    expect(state.runs).to.equal(1);
    expect(reachability.lastSeen().get("localhost")).to.deep.equal({ reachable: true, checkedAt: LATER });
  });
});

describe("start-up's chain id check", () => {
  it("a configured chain whose node is down stops the start, naming its RPC_URL setting and the fix", async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const clients = createChainClients({
      chains: { "arb-sep": { rpcUrl: `http://127.0.0.1:${port}` } },
      rpcTimeoutMs: 2_000,
    });
    const failure = await verifyChainIds(clients).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(ChainUnreachableError);
    expect((failure as Error).message).to.match(
      /^the RPC of arb-sep \(RPC_URL_ARB_SEP\) did not answer eth_chainId: .*ECONNREFUSED.*; start its node, or correct or unset RPC_URL_ARB_SEP$/,
    );
  });

  it("an RPC of another chain stops the start, naming both chain ids", async () => {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader("Content-Type", "application/json").end(JSON.stringify({ jsonrpc: "2.0", id, result: "0x1" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const clients = createChainClients({
        chains: { sep: { rpcUrl: `http://127.0.0.1:${port}` } },
        rpcTimeoutMs: 2_000,
      });
      const failure = await verifyChainIds(clients).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(ChainMismatchError);
      expect((failure as Error).message).to.equal("RPC of sep serves chain id 1, the registry says 11155111");
    } finally {
      server.close();
    }
  });
});
