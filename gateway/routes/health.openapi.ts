import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { HealthResponse } from "./health.schema";

const TAG: ApiTag = "Operations";

const METRICS_EXAMPLE = [
  "# HELP idwallet_resolved_user_ids_total User ids resolved to wallet addresses",
  "# TYPE idwallet_resolved_user_ids_total counter",
  "idwallet_resolved_user_ids_total 2",
  "",
].join("\n");

/** GET /health and GET /metrics (the operations router) in the OpenAPI document. */
export function registerOperationsPaths(registry: OpenAPIRegistry): void {
  // Not an app's token: the operator's own, each optional (anyone gets the statuses; metrics are open without one).
  const operator = registry.registerComponent("securitySchemes", "operatorToken", {
    type: "http",
    scheme: "bearer",
    description: "HEALTH_ADMIN_TOKEN for the details of GET /health; METRICS_TOKEN for GET /metrics when it is set",
  });
  const security = [{}, { [operator.name]: [] }];
  registry.registerPath({
    method: "get",
    path: "/health",
    operationId: "getHealth",
    tags: [TAG],
    summary: "Whether the database and each configured chain's RPC answer",
    description:
      "Each check is bounded by RPC_TIMEOUT_MS. Anyone sees the statuses; the latencies, block numbers and error " +
      "messages only with `Authorization: Bearer <HEALTH_ADMIN_TOKEN>` (any other token gets the public view, never " +
      "a 401). Served during maintenance.",
    security,
    responses: {
      200: {
        description: "Every dependency answers",
        content: {
          "application/json": {
            schema: HealthResponse,
            example: { status: "ok", checks: { database: { status: "ok" }, chains: { localhost: { status: "ok" } } } },
          },
        },
      },
      503: {
        description: "A dependency fails (the same report, `degraded`)",
        content: {
          "application/json": {
            schema: HealthResponse,
            example: {
              status: "degraded",
              checks: {
                database: { status: "ok", latencyMs: 1 },
                chains: { localhost: { status: "failing", latencyMs: 2000, detail: "no answer within 2000 ms" } },
              },
            },
          },
        },
      },
    },
  });
  registry.registerPath({
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    tags: [TAG],
    summary: "Prometheus metrics",
    description:
      "HTTP request durations by route and status, resolved ids, transactions by chain and status, the apps' gas " +
      "budgets, the chain workers' leases, webhook deliveries, the process. With METRICS_TOKEN set, only for that " +
      "bearer token (its labels name every app). Served during maintenance.",
    security,
    responses: {
      200: {
        description: "The Prometheus text format",
        content: { "text/plain": { schema: z.string(), example: METRICS_EXAMPLE } },
      },
      401: problem`${"INVALID_TOKEN"}: METRICS_TOKEN is set and was not sent`,
    },
  });
}
