import type { RequestHandler } from "express";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The service's Prometheus metrics, in a registry of its own (one per app, so tests stay isolated). */
export interface Metrics {
  readonly registry: Registry;
  readonly resolvedIds: Counter;
  readonly middleware: RequestHandler;
}

/** Creates the registry, the HTTP metrics and Node's default process metrics. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: "idwallet_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  const resolvedIds = new Counter({
    name: "idwallet_resolved_user_ids_total",
    help: "User ids resolved to wallet addresses",
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = requests.startTimer({ method: req.method });
    res.on("finish", () => {
      // The matched route pattern, never the raw path: bounded label values.
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      end({ route: `${req.baseUrl}${route}`, status: String(res.statusCode) });
    });
    next();
  };
  return { registry, resolvedIds, middleware };
}
