import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does with one JSON-RPC request: pass it on, never answer (the caller times out), answer as a
 * node does for a call that reverted without revert data (ethers: "missing revert data"), or answer on its own
 * without passing it on: a result (a node that says it took a transaction and lost it) or an error (a refusal).
 */
export type ProxyDecision = "forward" | "hang" | "revert" | { readonly result: unknown } | { readonly error: string };

/**
 * A JSON-RPC proxy in front of a node: records the requests it sees, can hold chosen ones forever, and can do
 * something of its own before passing one on (as an outsider watching the mempool would).
 */
export interface RpcProxy {
  readonly url: string;
  /** Every request seen, in order: method and params. */
  readonly seen: { method: string; params: unknown[] }[];
  close(): Promise<void>;
}

/** Starts a proxy to `target`; `decide` picks what happens to each request (default: forward). */
export async function startRpcProxy(
  target: string,
  decide: (method: string, params: unknown[]) => ProxyDecision | Promise<ProxyDecision> = () => "forward",
): Promise<RpcProxy> {
  const seen: { method: string; params: unknown[] }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      seen.push({ method: parsed.method, params: parsed.params ?? [] });
      // A decision may take its time (e.g. an outsider's transaction mined first): the request waits for it.
      void Promise.resolve(decide(parsed.method, parsed.params ?? [])).then((decision) => {
        if (decision === "hang") return;
        if (typeof decision === "object") {
          const answer =
            "result" in decision ? { result: decision.result } : { error: { code: -32000, message: decision.error } };
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, ...answer }));
          return;
        }
        if (decision === "revert") {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id, error: { code: 3, message: "execution reverted" } }));
          return;
        }
        fetch(target, { method: "POST", headers: { "Content-Type": "application/json" }, body }).then(
          async (answer) => {
            res.writeHead(answer.status, { "Content-Type": "application/json" });
            res.end(await answer.text());
          },
          () => res.destroy(),
        );
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
