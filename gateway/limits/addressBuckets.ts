import { isIP } from "node:net";

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as the IPv4 address it is. */
export const unmapped = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
};

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const parse = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split(".").map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The key every per-IP limit counts under: an IPv4 address as is, an IPv6 address as its /64. One subscriber
 * is routinely given a whole /64 (RFC 6177), so keying on full IPv6 addresses would let a client rotate freely.
 */
export function ipBucket(address: string | undefined): string {
  if (address === undefined) return "unknown";
  const plain = unmapped(address.split("%")[0]!);
  if (isIP(plain) !== 6) return plain;
  const prefix = ipv6Groups(plain.toLowerCase()).slice(0, 4);
  return `${prefix.map((g) => g.toString(16)).join(":")}::/64`;
}

/**
 * The wider network an address belongs to: an IPv4 /24, an IPv6 /48 (one site's usual assignment, RFC 6177). Limits
 * keyed on it bound a client who holds many addresses or /64s, at the price of sharing with its neighbours.
 */
export function networkBucket(address: string | undefined): string {
  if (address === undefined) return "unknown";
  const plain = unmapped(address.split("%")[0]!);
  if (isIP(plain) === 4) return `${plain.split(".").slice(0, 3).join(".")}.0/24`;
  if (isIP(plain) !== 6) return plain;
  const prefix = ipv6Groups(plain.toLowerCase()).slice(0, 3);
  return `${prefix.map((g) => g.toString(16)).join(":")}::/48`;
}
