import { Router } from "express";
import type { Registry } from "prom-client";
import { type HealthReport } from "../services/health";

/** GET /health (200 when every dependency answers, 503 otherwise) and GET /metrics (Prometheus). */
export function operationsRouter(deps: { health: () => Promise<HealthReport>; registry: Registry }): Router {
  return Router()
    .get("/health", async (_req, res) => {
      const report = await deps.health();
      res.status(report.status === "ok" ? 200 : 503).json(report);
    })
    .get("/metrics", async (_req, res) => {
      res.type(deps.registry.contentType).send(await deps.registry.metrics());
    });
}
