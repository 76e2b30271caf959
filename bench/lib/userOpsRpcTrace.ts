/**
 * An optional JSON-RPC pass-through between the service and the chain that times every call by method, so a
 * UserOperation bench run shows where the chain's share of the time goes (simulations, gas estimates, sends).
 * Latencies include queueing in the node: Hardhat runs calls largely one at a time.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Calls of one method since the last reset. */
export interface MethodTimes {
  readonly method: string;
  readonly calls: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

/** A running trace proxy. */
export interface RpcTrace {
  readonly url: string;
  /** Per-method times since the last reset, the costliest first; then starts counting afresh. */
  take(): MethodTimes[];
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port forwarding every POST to `target`. */
export async function startRpcTrace(target: string): Promise<RpcTrace> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let times = new Map<string, { calls: number; totalMs: number; maxMs: number }>();
  const record = (method: string, ms: number) => {
    const entry = times.get(method) ?? { calls: 0, totalMs: 0, maxMs: 0 };
    entry.calls++;
    entry.totalMs += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
    times.set(method, entry);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = methodOf(body);
      const start = performance.now();
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: upstream.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (part: Buffer) => parts.push(part));
          answer.on("end", () => {
            record(method, performance.now() - start);
            res.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
            res.end(Buffer.concat(parts));
          });
        },
      );
      forward.on("error", (error) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(error.message);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take: () => {
      const taken = [...times].map(([method, t]) => ({ method, ...t })).sort((a, b) => b.totalMs - a.totalMs);
      times = new Map();
      return taken;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** The method of a JSON-RPC request (`batch` for a batch). */
function methodOf(body: Buffer): string {
  try {
    const request = JSON.parse(body.toString("utf8")) as { method?: unknown } | unknown[];
    if (Array.isArray(request)) return `batch of ${request.length}`;
    return typeof request.method === "string" ? request.method : "?";
  } catch {
    return "?";
  }
}
