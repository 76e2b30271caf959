import { isIP } from "node:net";

/** What `--allow-insecure` admits besides https: plain http to this machine only. */
export const LOOPBACK_HOSTS = "localhost, 127.0.0.0/8, ::1";

/** Whether `hostname` (as URL.hostname spells it) names this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return isIP(host) === 6 && host === "::1";
}

/**
 * Why `url` may not serve a provider's key set, or undefined when it may. A key set fetched over plain http can be
 * swapped by anyone on the network path, who could then sign proofs for every id of the provider: https only, and
 * http only when the operator allows it for a loopback host (a local identity service in development).
 */
export function jwksUrlRefusal(url: string, options: { allowInsecure: boolean }): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the JWKS URL ${url} is not a URL`;
  }
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol !== "http:") return `the JWKS URL must be https://, not ${parsed.protocol}`;
  if (!options.allowInsecure)
    return `the JWKS URL must be https:// (over http:// anyone on the network path can swap the keys); --allow-insecure admits http:// for a loopback host (${LOOPBACK_HOSTS}) only`;
  if (!isLoopbackHost(parsed.hostname))
    return `--allow-insecure admits http:// only for a loopback host (${LOOPBACK_HOSTS}), not ${parsed.hostname}`;
  return undefined;
}
