import { request } from "node:http";
import { Interface, dnsEncode, namehash } from "ethers";
import { MAX_LOOKUP_CALL_BYTES, MAX_LOOKUP_RECORD_CALLS } from "../../gateway/ens/lookupLimits";

// A CCIP-read flood as an outsider sends it, run as its own program (node -r sucrase/register/ts lookupFlood.ts
// '<json>'), so that the test's process, which runs the chain, keeps its share of the CPU. Prints the count of each
// answer's status as JSON.

const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function text(bytes32 node, string key) view returns (string)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);

/** What to send: `lookups` lookups of distinct names from `sources` loopback addresses, `inFlight` at once. */
export interface FloodPlan {
  readonly url: string;
  readonly sender: string;
  readonly sources: number;
  readonly lookups: number;
  readonly inFlight: number;
  /** The first name's number: floods with other numbers ask other names. */
  readonly firstName: number;
}

/** The largest lookup the gateway answers: `resolve(name, multicall([text(node, "description") …]))`. */
export function largestLookup(name: string): string {
  const item = RECORDS.encodeFunctionData("text", [namehash(name), "description"]);
  for (let items = MAX_LOOKUP_RECORD_CALLS; items > 0; items--) {
    const data = RESOLVE.encodeFunctionData("resolve", [
      dnsEncode(name),
      RECORDS.encodeFunctionData("multicall", [Array.from({ length: items }, () => item)]),
    ]);
    if ((data.length - 2) / 2 <= MAX_LOOKUP_CALL_BYTES) return data;
  }
  throw new Error("no lookup fits");
}

/** The `i`-th client's address: 127.0.10.1, 127.0.10.2, … */
const source = (i: number) => `127.0.${10 + Math.floor(i / 250)}.${1 + (i % 250)}`;

/** POST /ccip from `localAddress` on a connection of its own; resolves to the status (0: the connection failed). */
function postLookup(url: URL, localAddress: string, sender: string, data: string): Promise<number> {
  const body = JSON.stringify({ sender, data });
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: "/ccip",
        method: "POST",
        agent: false,
        localAddress,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

/** Sends the plan's lookups; returns how many got each status. */
export async function flood(plan: FloodPlan): Promise<Record<number, number>> {
  const url = new URL(plan.url);
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.inFlight }, async () => {
      for (let i = next++; i < plan.lookups; i = next++) {
        const name = `u${plan.firstName + i}x.github.idwallet.eth`;
        const status = await postLookup(url, source(i % plan.sources), plan.sender, largestLookup(name));
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

if (require.main === module) {
  void flood(JSON.parse(process.argv[2]!) as FloodPlan).then((statuses) => console.log(JSON.stringify(statuses)));
}
