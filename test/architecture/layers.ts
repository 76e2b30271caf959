/**
 * The layers of `gateway/`, bottom first, and which layers each may import: the one place the allowed directions
 * are written down (ARCHITECTURE.md draws the same). A room is a folder of `gateway/` (or a file at its top); where a
 * feature's folder spans layers, its sub-rooms are placed one by one (`safe/accept` accepts requests, the rest of
 * `safe/` is the domain).
 */
export const LAYERS = {
  /** Values every room shares: error codes, chains and RPC clients, settings, user ids and addresses, key material. */
  foundation: ["errors", "crypto", "chains", "config", "identity"],
  /** The rules of each domain, and the ports (repository interfaces) each domain owns. */
  domains: [
    "transactions",
    "leases",
    "limits",
    "custody",
    "auth",
    "policy",
    "relaying",
    "userop",
    "safe",
    "webhooks",
    "dust",
    "ens",
    "console",
  ],
  /** Use cases across domains: the one accept path, what each chain can do, the Safe and dust requests. */
  application: ["accept", "safe/accept", "dust/accept", "console/service"],
  /** The per-chain workers: the built-in bundler's pipeline and the external bundler, over the kinds of work. */
  workers: ["bundler"],
  /** What implements the ports: the SQL adapter of both databases, its migrations and the PostgreSQL pool. */
  adapters: ["storage"],
  /** The HTTP face: middleware, problems, the OpenAPI parts, one route definition per resource. */
  http: ["http", "openapi", "routes", "console/web"],
  /** Wiring and processes: the app, its services, the server, the cluster, the entry point. */
  app: ["app.ts", "appServices.ts", "appDeps.ts", "server.ts", "cluster.ts", "main.ts", "workerWaker.ts"],
} as const;

export type Layer = keyof typeof LAYERS;

/**
 * The layers each layer may import, besides its own. Domains never import the application, workers, adapters, HTTP
 * or the app; adapters never import HTTP, routes or workers; only the app wires everything.
 */
export const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  foundation: [],
  domains: ["foundation"],
  application: ["foundation", "domains"],
  workers: ["foundation", "domains", "application"],
  adapters: ["foundation", "domains"],
  http: ["foundation", "domains", "application", "adapters"],
  app: ["foundation", "domains", "application", "workers", "adapters", "http"],
};

/**
 * Imports that run against the order, each with why it stays. Each must still exist (a stale entry fails), and no
 * other may appear. Empty: nothing runs back up.
 */
export const ALLOWED_UPWARD: readonly { readonly from: string; readonly to: string; readonly why: string }[] = [];

/** The room of a path under `gateway/` (`safe/accept/safes.ts` → `safe/accept`, `bundler/builtin/x.ts` → `bundler`). */
export function roomOf(pathInGateway: string): string {
  const parts = pathInGateway.split("/");
  if (parts.length === 1) return parts[0]!;
  const sub = `${parts[0]}/${parts[1]}`;
  return layerOf(sub) === undefined ? parts[0]! : sub;
}

/** The layer a room is placed in; undefined for a room no layer names (the structure test then fails). */
export function layerOf(room: string): Layer | undefined {
  return (Object.keys(LAYERS) as Layer[]).find((layer) => (LAYERS[layer] as readonly string[]).includes(room));
}
