import { z } from "zod";

/** One dependency's check; everything but `status` only in the detailed view (HEALTH_ADMIN_TOKEN). */
const Check = z.object({
  status: z.enum(["ok", "failing"]),
  latencyMs: z.number().int().optional(),
  detail: z.string().optional().meta({ description: "Why it fails (detailed view only: it can name hosts and files)" }),
  blockNumber: z.number().int().optional().meta({ description: "The chain's latest block, when its RPC answered" }),
});

/** GET /health answer (200 ok, 503 degraded): the public view, or with the admin token the detailed one. */
export const HealthResponse = z
  .object({
    status: z.enum(["ok", "degraded"]),
    checks: z.object({
      database: Check,
      chains: z.record(z.string(), Check).meta({ description: "Each configured chain's RPC, by chain name" }),
    }),
  })
  .meta({ id: "Health" });

/** What GET /health answers, as documented: the route's answer is checked against it when compiled. */
export type HealthAnswer = z.infer<typeof HealthResponse>;
