import { z } from "zod";
import { SafeCallRefusalReason } from "../safe/model/safeCallRules";
import { CallRefusalReason } from "../policy/callPolicy";

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
    calls: z
      .array(
        z.object({
          index: z.number().int().meta({
            description: "The call's index in to / value / data (a Safe payout: the transfer's; custom: 0)",
          }),
          to: z.string().meta({ description: "Its target (EIP-55)" }),
          // One list of the reasons of both refusals (SELF_CALL is both a wallet's and a Safe's).
          reason: z.enum([...new Set([...CallRefusalReason.options, ...SafeCallRefusalReason.options])]),
          function: z
            .string()
            .optional()
            .meta({ description: "SAFE_CALL_NOT_ALLOWED: the Safe configuration function the call names" }),
        }),
      )
      .optional()
      .meta({ description: "CALL_NOT_ALLOWED, SAFE_CALL_NOT_ALLOWED: each refused call and why" }),
  })
  .meta({
    id: "Problem",
    example: {
      type: "about:blank",
      title: "Invalid request",
      status: 400,
      code: "INVALID_REQUEST",
      detail: "The request failed validation",
      errors: [{ pointer: "/userIds", detail: "Invalid input: expected string, received undefined" }],
      instance: "/v1/resolver",
      requestId: "133113b0-7291-4163-8764-d3abc3c0703f",
    },
  });

/** An error answer of an operation: a problem, `description` naming its codes and when. */
export const problemResponse = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});
