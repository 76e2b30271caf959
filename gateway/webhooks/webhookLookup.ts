import { type LookupAddress, type LookupOptions } from "node:dns";
import { Resolver } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { isAllowedAddress, type TargetRules } from "./webhookTarget";

/** The host's answer broke the rules (webhookTarget.ts): the attempt is `refused`, not a network error. */
export class RefusedTarget extends Error {}

/** How one attempt resolves its host. */
export interface LookupSettings {
  readonly rules: TargetRules;
  /** The attempt's whole deadline: a look-up may take a share of it, never all of it. */
  readonly timeoutMs: number;
  /** Nameservers to ask (IP or IP:port); empty: the system's (/etc/resolv.conf). */
  readonly dnsServers: readonly string[];
  /** Aborted when the attempt ends, however it ends: its look-ups are cancelled then. */
  readonly signal: AbortSignal;
}

/**
 * Each query is sent twice at most (UDP loses packets), and c-ares doubles the wait for the second: with one nameserver
 * a look-up gives up after about half the attempt's deadline, so a nameserver that never answers shows as its own error.
 */
const LOOKUP_TRIES = 2;
const LOOKUP_SHARE = 6;

// The name every hosts file answers; a resolver that asks nameservers only would send it to DNS, where it means nothing.
// Names under it are asked like any other name, and their answers judged like any other.
const LOCALHOST: readonly LookupAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/** 4, 6, or 0 for either, however net spelled it. */
function familyOf(family: LookupOptions["family"]): 0 | 4 | 6 {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return 0;
}

/** Both families' addresses (IPv4 first), or one's; what failed if neither answered. */
async function resolveHost(resolver: Resolver, hostname: string, family: number): Promise<LookupAddress[]> {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost") return LOCALHOST.filter((a) => family === 0 || a.family === family);
  const asked: Promise<LookupAddress[]>[] = [];
  if (family !== 6) asked.push(resolver.resolve4(name).then((list) => list.map((address) => ({ address, family: 4 }))));
  if (family !== 4) asked.push(resolver.resolve6(name).then((list) => list.map((address) => ({ address, family: 6 }))));
  const answers = await Promise.allSettled(asked);
  const addresses = answers.flatMap((answer) => (answer.status === "fulfilled" ? answer.value : []));
  if (addresses.length > 0) return addresses;
  // A name with no record of one family says ENODATA there: the other family's error says more.
  const errors = answers.flatMap((answer) =>
    answer.status === "rejected" ? [answer.reason as NodeJS.ErrnoException] : [],
  );
  const telling = errors.find((err) => err.code !== "ENODATA") ?? errors[0];
  if (telling !== undefined) throw telling;
  throw new RefusedTarget(`the host ${hostname} has no address`);
}

/**
 * A `lookup` for node:net, for one attempt, that connects only to addresses the rules allow: a name registered while it
 * pointed at a public address may point somewhere private by now (DNS rebinding), so the answer is judged here, at
 * connect time. The attempt has a resolver of its own: c-ares asks on the event loop (dns.lookup would hold one of
 * libuv's four pool threads for as long as getaddrinfo waits), the look-up has its own timeout, and when the attempt
 * ends its queries are cancelled. One app's nameserver then holds nothing beyond its own attempts, which the claims'
 * shares per endpoint and per app already bound; no other app's look-up waits on it.
 */
export function guardedLookup(settings: LookupSettings): LookupFunction {
  const { rules, signal } = settings;
  let resolver: Resolver | undefined;
  // Made at the first look-up: a URL with an IP address never asks one.
  const resolverOf = (): Resolver => {
    if (resolver !== undefined) return resolver;
    const made = new Resolver({ timeout: Math.ceil(settings.timeoutMs / LOOKUP_SHARE), tries: LOOKUP_TRIES });
    if (settings.dnsServers.length > 0) made.setServers(settings.dnsServers);
    signal.addEventListener("abort", () => made.cancel(), { once: true });
    return (resolver = made);
  };

  return (hostname: string, options: LookupOptions, callback) => {
    if (signal.aborted) return callback(Object.assign(new Error("the attempt has ended"), { code: "ECANCELLED" }), "");
    resolveHost(resolverOf(), hostname, familyOf(options.family)).then(
      (addresses) => {
        // Every answer must pass: net may try any of them (happy eyeballs), and a mixed answer is a rebinding tell.
        for (const { address } of addresses) {
          const verdict = isAllowedAddress(address, rules);
          if (!verdict.ok)
            return callback(new RefusedTarget(`the host ${hostname} resolves to: ${verdict.reason}`), "");
        }
        // Node 20 asks for `all` when it may race address families (autoSelectFamily), and for one address otherwise.
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}
