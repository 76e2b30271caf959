import { z } from "zod";

/** RFC 9457 problem details, as every error is answered. */
export const Problem = z
  .object({
    type: z.string().meta({ example: "about:blank" }),
    title: z.string(),
    status: z.number().int(),
    code: z.string().meta({ description: "Stable machine-readable code", example: "INVALID_REQUEST" }),
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional(),
  })
  .meta({ id: "Problem" });
