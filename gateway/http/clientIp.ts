import { BlockList, isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import { unmapped } from "../limits/addressBuckets";
import type { TrustProxy } from "../config/trustProxy";

/**
 * The client's address as express computes `req.ip` with the same `trust proxy` setting (proxy-addr's walk): from
 * the socket back through X-Forwarded-For while the hop is trusted. For handlers that run outside express.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string | undefined {
  const socket = req.socket.remoteAddress;
  if (trust === false || socket === undefined) return socket;
  const header = req.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
  const hops = [socket, ...forwarded];
  const trusted = trustFunction(trust);
  let index = 0;
  while (index < hops.length - 1 && trusted(hops[index]!, index)) index++;
  return hops[index];
}

/** `trust proxy` as a predicate over (address, hop index), as express compiles it. */
function trustFunction(trust: Exclude<TrustProxy, false>): (address: string, hop: number) => boolean {
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  const list = new BlockList();
  for (const entry of trust) {
    const [address = "", prefix] = entry.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const plain = unmapped(address);
    return isIP(plain) !== 0 && list.check(plain, isIP(plain) === 6 ? "ipv6" : "ipv4");
  };
}
