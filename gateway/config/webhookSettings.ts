import { Resolver } from "node:dns";
import { z } from "zod";
import { flag, int } from "./settingTypes";

/**
 * Seconds between a failed attempt and the next, per Standard Webhooks' recommended schedule (the first attempt is
 * made at once): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts over about 27.6 hours, each delay with ±20 %
 * jitter, then the delivery is given up (`failed`).
 */
export const DEFAULT_RETRY_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** Whether node's resolver takes `server` as a nameserver: an IP address, or one with a port (`[v6]:port`). */
function isNameserver(server: string): boolean {
  try {
    new Resolver().setServers([server]);
    return true;
  } catch {
    return false;
  }
}

/** How webhooks are delivered (docs/webhooks.md); WEBHOOK_* settings. */
export const WebhookSettings = z
  .object({
    /** Deliver in this process (in cluster mode: in the primary); every instance may, claims keep them apart. */
    worker: flag.default(true),
    /** Endpoints on loopback addresses, over http too: the local stack and tests only. */
    allowLoopback: flag.default(false),
    /** Endpoints on private, unique-local, link-local and shared addresses: the operator's own network. */
    allowPrivate: flag.default(false),
    /** One attempt's limit: connecting, the answer's headers and its body together. */
    timeoutMs: int(1000, 60_000).default(10_000),
    /** Nameservers endpoint hosts are resolved with; empty: the system's (/etc/resolv.conf). */
    dnsServers: z
      .array(z.string().refine(isNameserver, "must be an IP address, or one with a port (1.1.1.1:53, [::1]:53)"))
      .max(8)
      .default([]),
    /** The delays between attempts, in seconds (comma-separated); their count is the retries. */
    retrySeconds: z
      .array(int(0, 7 * 86_400))
      .min(1)
      .max(20)
      .default([...DEFAULT_RETRY_SECONDS]),
    /** An endpoint is disabled once this many attempts in a row failed … */
    disableAfterFailures: int(1, 10_000).default(5),
    /** … over at least this long (its first failure of the run this long ago). */
    disableAfterSeconds: int(0, 30 * 86_400).default(86_400),
    /** How long a rotated-out signing secret still signs beside the new one (0: it stops at once). */
    secretOverlapSeconds: int(0, 7 * 86_400).default(86_400),
    /** Endpoints one app may register. */
    maxEndpointsPerApp: int(1, 100).default(10),
    /** Days delivered and given-up deliveries, their attempts and their events are kept (`webhooks deliveries`). */
    retentionDays: int(1, 3650).default(30),
    /** How often the delivery worker looks for due deliveries. */
    pollMs: int(10, 60_000).default(500),
    /** Attempts one process makes at once. */
    concurrency: int(1, 256).default(16),
    /** Attempts in flight to one endpoint, and to one app's endpoints together, counting every process and instance. */
    endpointConcurrency: int(1, 64).default(2),
    appConcurrency: int(1, 256).default(4),
  })
  .prefault({});

/** The webhook settings, parsed. */
export type WebhookSettings = z.infer<typeof WebhookSettings>;
