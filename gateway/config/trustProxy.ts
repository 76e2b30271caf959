import { isIP } from "node:net";
import { z } from "zod";

/** Who may set X-Forwarded-For: nobody (false), the nearest `n` hops, or proxies at these addresses/CIDRs. */
export type TrustProxy = false | number | readonly string[];

const isCidr = (entry: string): boolean => {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
};

/** TRUST_PROXY: `false`/`0`, a hop count (`1` behind one load balancer), or a comma list of IPs/CIDRs. */
export const TrustProxySetting = z
  .union([z.boolean(), z.number(), z.string(), z.array(z.string())])
  .transform((value, ctx): TrustProxy => {
    if (value === false || value === "false" || value === 0 || value === "0" || value === "") return false;
    const text = typeof value === "number" ? String(value) : value;
    if (typeof text === "string" && /^\d+$/.test(text.trim()) && Number(text) <= 32) return Number(text);
    const entries = (Array.isArray(text) ? text : String(text).split(",")).map((e) => e.trim()).filter(Boolean);
    if (entries.length > 0 && entries.every(isCidr)) return entries;
    ctx.addIssue({ code: "custom", message: "false, a hop count (0-32) or a comma list of IPs/CIDRs" });
    return z.NEVER;
  });
