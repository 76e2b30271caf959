import { type Server, type Socket, connect, createServer } from "node:net";

/**
 * What the node looks like from the service: `up` passes every connection through, `refuse` stops listening (a
 * connection attempt gets ECONNREFUSED, as from a node that is down), `hang` accepts connections and never answers
 * (a node that is wedged or behind a black-holing network; the service's RPC timeout has to end each call).
 */
export type RpcMode = "up" | "refuse" | "hang";

/** A TCP proxy in front of a JSON-RPC node whose reachability the test switches. */
export interface SwitchableRpc {
  readonly url: string;
  readonly mode: RpcMode;
  /** Switches the mode; connections open at the switch are cut, as when a node goes away or comes back. */
  set(mode: RpcMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` (an http://host:port URL) on a free loopback port, in mode `up`. It works on TCP, not
 * HTTP, so that what the service sees is what a dying node gives: refused connections, reset sockets, silence.
 */
export async function startSwitchableRpc(target: string): Promise<SwitchableRpc> {
  const upstream = new URL(target);
  let mode: RpcMode = "up";
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode === "hang") {
      client.resume(); // read and drop: the request is taken, no answer ever comes
      return;
    }
    const node = connect(Number(upstream.port), upstream.hostname);
    track(node);
    client.pipe(node).pipe(client);
    client.once("close", () => node.destroy());
    node.once("close", () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.removeListener("error", reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const cutAll = () => {
    for (const socket of open) socket.destroy();
  };
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));

  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    async set(next) {
      if (next === mode) return;
      const wasListening = mode !== "refuse";
      mode = next;
      cutAll();
      if (next === "refuse" && wasListening) await stopListening();
      // The same port again (the service keeps its RPC URL); Node listens with SO_REUSEADDR.
      if (next !== "refuse" && !wasListening) await listen(port);
    },
    async close() {
      cutAll();
      if (mode !== "refuse") await stopListening();
    },
  };
}
