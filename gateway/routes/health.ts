import { Router } from "express";
import type { Registry } from "prom-client";
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE, UnauthorizedError } from "../errors/apiError";
import { hasAdminToken } from "../http/adminToken";
import { type HealthReport, publicHealthReport } from "../chains/health";
import type { HealthAnswer } from "./health.schema";
import { throttled } from "../http/sharedRuns";

/**
 * Scrapes start at least this far apart in a process: each reads the database (queue, budgets, leases, webhooks), and
 * without METRICS_TOKEN anyone may scrape. A scrape still never answers from before it came (throttled()).
 */
const SCRAPE_INTERVAL_MS = 500;

/**
 * GET /health (200 when every dependency answers, 503 otherwise: statuses for anyone, the checks' details with
 * `Authorization: Bearer <HEALTH_ADMIN_TOKEN>`) and GET /metrics (Prometheus; with METRICS_TOKEN set, only for it).
 */
export function operationsRouter(deps: {
  health: () => Promise<HealthReport>;
  registry: Registry;
  adminToken: string | undefined;
  /** When set, /metrics needs it as a bearer token. */
  metricsToken: string | undefined;
}): Router {
  const scrape = throttled(() => deps.registry.metrics(), SCRAPE_INTERVAL_MS);
  return Router()
    .get("/health", async (req, res) => {
      const report = await deps.health();
      // A missing or wrong token gets the public view, never a 401: a load balancer's probe reads the status alone.
      const detailed = hasAdminToken(req.headers.authorization, deps.adminToken);
      res
        .status(report.status === "ok" ? 200 : 503)
        .set("Cache-Control", "no-store")
        .json((detailed ? report : publicHealthReport(report)) satisfies HealthAnswer);
    })
    .get("/metrics", async (req, res) => {
      // Its labels name every app and its budget use: for the operator's scraper, not for anyone who asks.
      if (deps.metricsToken !== undefined && !hasAdminToken(req.headers.authorization, deps.metricsToken)) {
        // RFC 6750 §3.1: the challenge of a request that sent no token names no error.
        throw new UnauthorizedError(
          "INVALID_TOKEN",
          "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>",
          req.headers.authorization === undefined ? BEARER_CHALLENGE : INVALID_TOKEN_CHALLENGE,
        );
      }
      res.type(deps.registry.contentType).send(await scrape());
    });
}
