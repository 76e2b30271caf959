import { z } from "zod";
import { SafeCallRefusalReason } from "../safe/model/safeCallRules";
import { CallRefusalReason } from "../policy/callPolicy";
import { ERROR_CODES, type ErrorCode, OAUTH_ERRORS, type OAuthErrorName } from "../errors/errorCodes";

/**
 * Every code a problem answer may carry, from errors/errorCodes.ts: each listed code that is answered (a status, not
 * null), and the upper case of POST /v1/auth's RFC 6749 errors.
 */
export const PROBLEM_CODES = [
  ...new Set<ErrorCode>([
    ...ERROR_CODES.flatMap((entry) => (entry.status === null ? [] : [entry.code])),
    ...OAUTH_ERRORS.map((error) => error.toUpperCase() as Uppercase<OAuthErrorName>),
  ]),
] as [ErrorCode, ...ErrorCode[]];

/** RFC 9457 problem details, as every error is answered. */
export const Problem = z
  .object({
    type: z.string().meta({ example: "about:blank" }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(PROBLEM_CODES).meta({ description: "Stable machine-readable code", example: "INVALID_REQUEST" }),
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional(),
    error: z
      .enum(OAUTH_ERRORS)
      .optional()
      .meta({ description: "POST /v1/auth: the RFC 6749 error (`code` in lower case)" }),
    error_description: z.string().optional().meta({ description: "POST /v1/auth: the RFC 6749 error's text" }),
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

/** A code an error answer documents: one of errors/errorCodes.ts, or (POST /v1/auth) an RFC 6749 error's name. */
export type DocumentedCode = ErrorCode | OAuthErrorName;

/** An error answer of an operation in the OpenAPI document. */
export interface ProblemResponse {
  readonly description: string;
  readonly content: { readonly "application/problem+json": { readonly schema: typeof Problem } };
}

/** The codes each error answer documents, kept beside the answer (the document itself has only its text). */
const documented = new WeakMap<ProblemResponse, readonly DocumentedCode[]>();

/**
 * An error answer of an operation: a problem whose description names the codes it may carry, and when. A tag: each
 * code is an interpolated string typed as a code of errors/errorCodes.ts, so a misspelt or unlisted one fails to
 * typecheck; the text between them is free. A line break in the text, with the spaces around it, reads as one space,
 * so a long description wraps in the source:
 *
 *   400: problem`${"INVALID_REQUEST"} (not an address), ${"UNKNOWN_CHAIN"} or ${"CHAIN_NOT_AVAILABLE"}`
 */
export function problemResponse(text: TemplateStringsArray, ...codes: DocumentedCode[]): ProblemResponse {
  const description = text.reduce((joined, part, i) => joined + part + (codes[i] ?? ""), "").replace(/\s*\n\s*/g, " ");
  const response = { description, content: { "application/problem+json": { schema: Problem } } };
  documented.set(response, codes);
  return response;
}

/** The codes an error answer made by `problemResponse` documents; undefined for any other answer. */
export const documentedCodes = (response: object): readonly DocumentedCode[] | undefined =>
  documented.get(response as ProblemResponse);

/** The 415 of every route with a JSON body (http/jsonBody.ts; the resolver, which reads text/plain too, has its own). */
export const JSON_BODY_MEDIA_TYPE = problemResponse`${"UNSUPPORTED_MEDIA_TYPE"}: a body in another media type, or one
  without Content-Type (send application/json)`;
