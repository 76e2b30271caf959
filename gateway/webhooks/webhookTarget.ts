import ipaddr from "ipaddr.js";
import { isIP } from "node:net";

/** Which non-public destinations this deployment lets webhooks reach. */
export interface TargetRules {
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
}

type Verdict = { ok: true } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

// ipaddr.js range names an operator may open up with allowPrivate. Never link-local: it holds the cloud metadata
// services (169.254.169.254, fe80::…), which hand out the machine's credentials to whoever asks.
const PRIVATE_RANGES = new Set(["private", "uniqueLocal", "carrierGradeNat"]);

// Metadata services outside link-local, refused even with allowPrivate: Alibaba Cloud's (in 100.64/10) and AWS's IPv6
// one (in fc00::/7).
const METADATA_ADDRESSES = new Set(["100.100.100.200", "fd00:ec2::254"]);

// How each ipaddr.js range reads in a refusal; any range not listed is "reserved".
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "unique-local",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  "6to4": "6to4, which embeds an IPv4 address",
  rfc6052: "NAT64, which embeds an IPv4 address",
  rfc6145: "IPv4-translated, which embeds an IPv4 address",
  teredo: "Teredo, which embeds an IPv4 address",
};

// IANA assigns global unicast IPv6 only from 2000::/3 (RFC 4291 §2.4); outside it, ipaddr.js still says "unicast" for
// e.g. the deprecated IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5.1), which must not slip through as public.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** Whether a webhook may connect to this IP address; IPv4-mapped IPv6 is judged as the IPv4 address it carries. */
export function isAllowedAddress(ip: string, rules: TargetRules): Verdict {
  if (!ipaddr.isValid(ip)) return refuse(`${ip} is not an IP address`);
  const address = ipaddr.process(ip);
  const range: string = address.range();
  const shown = address.toString();
  if (range === "unicast") {
    if (address instanceof ipaddr.IPv6 && !address.match(GLOBAL_UNICAST_V6))
      return refuse(`the address ${shown} is reserved`);
    return { ok: true };
  }
  if (range === "loopback" && rules.allowLoopback) return { ok: true };
  if (METADATA_ADDRESSES.has(shown)) return refuse(`the address ${shown} is a cloud metadata service`);
  if (PRIVATE_RANGES.has(range) && rules.allowPrivate) return { ok: true };
  return refuse(`the address ${shown} is ${RANGE_WORDS[range] ?? "reserved"}`);
}

// RFC 6761 §6.3: "localhost" and every name under it are loopback names, whatever DNS would say.
function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Registration-time checks on a webhook URL. Judges the WHATWG-parsed host, so odd IPv4 spellings (2130706433, 0x7f.1,
 * 017700000001) are seen as the address they reach; names are judged again at connect time against what DNS answers.
 */
export function checkWebhookUrl(
  text: string,
  rules: TargetRules,
): { ok: true; url: URL } | { ok: false; reason: string } {
  const tooLong = `the URL must be at most ${MAX_URL_LENGTH} characters`;
  if (text.length > MAX_URL_LENGTH) return refuse(tooLong);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse("the URL is not a valid absolute URL");
  }
  if (url.href.length > MAX_URL_LENGTH) return refuse(tooLong);
  if (url.protocol !== "https:" && url.protocol !== "http:") return refuse("the URL must use https");
  if (url.username !== "" || url.password !== "") return refuse("the URL must not contain a username or password");
  // A fragment is never sent to the server (RFC 3986 §3.5); any "#" left in href starts one, even an empty one.
  if (url.href.includes("#")) return refuse("the URL must not contain a fragment");

  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let loopback: boolean;
  if (isIP(host) !== 0) {
    const verdict = isAllowedAddress(host, rules);
    if (!verdict.ok) return verdict;
    loopback = ipaddr.process(host).range() === "loopback";
  } else {
    loopback = isLocalhostName(host);
    if (loopback && !rules.allowLoopback) return refuse(`the host ${host} is loopback`);
  }
  // Plain http only ever to this machine, and only where loopback is allowed (the refusal above has run by now).
  if (url.protocol === "http:" && !loopback) return refuse("the URL must use https");
  return { ok: true, url };
}
