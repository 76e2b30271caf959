/**
 * Sums a V8 CPU profile (`node --cpu-prof`, e.g. the service children of `BENCH_CPU_PROF=<dir>`) by area: each sample
 * goes to the first frame from the leaf up that names one (a library, or a directory of the service), so JSON.parse
 * in the RPC client counts as RPC and zod called by the bundler counts as zod. A few leaves are areas of their own:
 * socket writes (on loopback the kernel's whole TCP path runs inside them) and SQLite's statements and commits.
 * The profiler samples the main thread whenever it is not idle, so time blocked in a system call (COMMIT's fsync
 * under synchronous=FULL) counts as busy, though it is no CPU; shares are of that busy time.
 *
 *   npx ts-node bench/cpuProfileAreas.ts <file.cpuprofile> [operations]
 *
 * With `operations`, every figure is also given per operation. Idle time and start-up (ts-node compiling the
 * service) are left out.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Areas by the URL of a frame, first match wins; undefined areas are looked for further up the stack. */
const AREAS: readonly (readonly [RegExp, string])[] = [
  [/node_modules\/(typescript|ts-node|source-map-support|@cspotcode)\//, "start-up"],
  [/node_modules\/zod\//, "zod"],
  [/node_modules\/jose\//, "JWT (jose)"],
  [/node_modules\/kysely\//, "SQLite: Kysely (building, compiling queries, rows)"],
  [/node_modules\/better-sqlite3\//, "SQLite: statements (better-sqlite3, native)"],
  [/gateway\/storage\//, "SQLite: repositories (own code)"],
  [
    /node_modules\/(express|router|body-parser|raw-body|helmet|cors|finalhandler|send|path-to-regexp|qs|type-is|content-type|on-finished|iconv-lite|statuses|http-errors|accepts|negotiator|mime-types|mime-db|depd|parseurl|proxy-addr|fresh|etag|vary|media-typer|encodeurl|escape-html|ipaddr\.js)\//,
    "HTTP (Express and its middleware)",
  ],
  [
    /node_modules\/pino|node_modules\/(sonic-boom|thread-stream|fast-redact|quick-format-unescaped)\//,
    "logging (pino)",
  ],
  [/node_modules\/prom-client\//, "metrics (prom-client)"],
  [/node_modules\/(secp256k1|@noble\/curves|elliptic)\/|gateway\/(custody|crypto)\//, "signing (secp256k1, custody)"],
  [/node_modules\/(keccak|@noble\/hashes|js-sha3)\//, "hashing (Keccak)"],
  [/node_modules\/ethers\/lib\.commonjs\/abi\//, "ethers ABI coding"],
  [/node_modules\/ethers\//, "ethers (other: addresses, bytes, hashing)"],
  [/gateway\/chains\//, "RPC client (HTTP, JSON)"],
  [/gateway\/(auth|http\/bearer)/, "JWT (jose)"],
  [/gateway\/bundler\//, "bundler loop (own code)"],
  [/gateway\/userop\//, "UserOperation building (own code)"],
  [/gateway\//, "API and services (own code)"],
];

/** Native functions that write to a socket. */
const SOCKET_WRITES = new Set(["writev", "writeBuffer", "writeUtf8String", "writeLatin1String", "writeAsciiString"]);
const KYSELY_SQLITE_DRIVER = "kysely/dist/cjs/dialect/sqlite/sqlite-driver.js";

/** V8's own pseudo-frames. */
const PSEUDO: Readonly<Record<string, string>> = {
  "(idle)": "idle",
  "(garbage collector)": "garbage collection",
  "(program)": "V8 and native (program)",
  "(root)": "V8 and native (program)",
};

/**
 * The area of a sample's stack (leaf first). Node's own frames are looked through, so writing a response counts for
 * whoever wrote it; a stack of node frames alone is the HTTP client's (the RPC's answers) or the server's side.
 */
function areaOf(stack: readonly ProfileNode[]): string {
  const leaf = stack[0]!.callFrame;
  if (PSEUDO[leaf.functionName] && !leaf.url) return PSEUDO[leaf.functionName]!;
  if (SOCKET_WRITES.has(leaf.functionName) && !leaf.url) return "socket writes (system calls: loopback TCP)";
  // Kysely's driver runs better-sqlite3's native statement inside this function: its self time is SQLite's.
  if (leaf.functionName === "executeQuery" && leaf.url.includes(KYSELY_SQLITE_DRIVER)) {
    const caller = stack[1]?.callFrame.functionName;
    return caller === "commitTransaction" || caller === "beginTransaction"
      ? "SQLite: BEGIN and COMMIT (COMMIT's fsync)"
      : "SQLite: statements (better-sqlite3, native)";
  }
  for (const node of stack) {
    const url = node.callFrame.url.replace(/\\/g, "/");
    if (url.startsWith("node:")) continue;
    const area = AREAS.find(([pattern]) => pattern.test(url));
    if (area) return area[1];
  }
  if (stack.some((n) => n.callFrame.url.startsWith("node:_http_client"))) return "RPC client (HTTP, JSON)";
  return stack.some((n) => n.callFrame.url.startsWith("node:"))
    ? "node core (HTTP server, sockets, timers)"
    : "other (native)";
}

function main(): void {
  const [file, opsArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: cpuProfileAreas <file.cpuprofile> [operations]");
  const ops = opsArg ? Number(opsArg) : undefined;
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n);
  const areas = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    const stack: ProfileNode[] = [];
    for (let n = byId.get(id); n; n = parent.get(n.id)) stack.push(n);
    const micros = profile.timeDeltas[i] ?? 0;
    const area = areaOf(stack);
    areas.set(area, (areas.get(area) ?? 0) + micros);
  }
  const busy = [...areas].filter(([a]) => a !== "idle" && a !== "start-up").reduce((sum, [, us]) => sum + us, 0);
  const row = (name: string, us: number) =>
    `| ${name} | ${(us / 1000).toFixed(0)} ms | ${((100 * us) / busy).toFixed(1)} % |` +
    (ops ? ` ${(us / ops).toFixed(0)} µs |` : "");
  const header = (first: string) => [
    `| ${first} | Busy | Share |${ops ? " Per op |" : ""}`,
    `| --- | --: | --: |${ops ? " --: |" : ""}`,
  ];
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  console.log(
    [
      `Busy (not idle, not start-up): ${(busy / 1000).toFixed(0)} ms; idle ${((areas.get("idle") ?? 0) / 1000).toFixed(0)} ms; ` +
        `start-up ${((areas.get("start-up") ?? 0) / 1000).toFixed(0)} ms.`,
      "",
      ...header("Area"),
      ...sorted(areas)
        .filter(([a]) => a !== "idle" && a !== "start-up")
        .map(([a, us]) => row(a, us)),
    ].join("\n"),
  );
}

main();
