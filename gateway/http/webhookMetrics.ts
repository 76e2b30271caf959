import { Gauge, type Registry } from "prom-client";

/** Where the webhook gauges read from, at each scrape (the database: every process and instance reports the same). */
export interface WebhookMetricsSource {
  queue(): Promise<{ pending: number; oldestEventAt: string | undefined }>;
  attemptCounts(): Promise<readonly { endpointId: string; outcome: string; count: number }[]>;
}

/**
 * Webhook delivery metrics (issue 21): attempts by endpoint and outcome (a total that only grows, read from the
 * attempts table), deliveries owed, and the age of the oldest event not yet delivered (alert when it climbs).
 */
export function registerWebhookGauges(registry: Registry, source: WebhookMetricsSource, clock: () => Date): void {
  new Gauge({
    name: "idwallet_webhook_deliveries_total",
    help: "Webhook delivery attempts by endpoint and outcome (delivered, http_error, network_error, timeout, refused)",
    labelNames: ["endpoint", "outcome"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await source.attemptCounts()) {
        this.set({ endpoint: row.endpointId, outcome: row.outcome }, row.count);
      }
    },
  });
  // Both queue gauges of one scrape share one read, made by the first to ask.
  let reading: ReturnType<WebhookMetricsSource["queue"]> | undefined;
  const readQueue = () => (reading ??= source.queue().finally(() => (reading = undefined)));
  new Gauge({
    name: "idwallet_webhook_queue_depth",
    help: "Webhook deliveries owed to endpoints and not yet delivered or given up",
    registers: [registry],
    async collect() {
      this.set((await readQueue()).pending);
    },
  });
  new Gauge({
    name: "idwallet_webhook_oldest_undelivered_seconds",
    help: "Age of the oldest event still owed to an endpoint (0 when none is)",
    registers: [registry],
    async collect() {
      const { oldestEventAt } = await readQueue();
      this.set(oldestEventAt ? Math.max(0, (clock().getTime() - new Date(oldestEventAt).getTime()) / 1000) : 0);
    },
  });
}
