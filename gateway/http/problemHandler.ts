import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";
import { isError } from "ethers";
import { ZodError } from "zod";
import { ChainReadError } from "../chains/chainReadError";
import { isStorageUnavailable } from "../storage/errors";
import {
  ApiError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
} from "../errors/apiError";
import { zodProblems } from "../errors/zodProblems";
import { sendJson } from "./jsonResponse";

/** RFC 9457 media type of every error body. */
export const PROBLEM_JSON = "application/problem+json";

/** Seconds a client is told to wait before retrying a request the storage could not take. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Errors thrown by body-parser carry these fields. */
interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Maps anything thrown to an ApiError; unknown errors become undefined (a bare 500). */
export function toApiError(error: unknown, bodyLimit: string): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof ZodError) return new InvalidRequestError("The request failed validation", zodProblems(error));
  // A chain RPC that is slow or down is the upstream's fault, not the client's, and not ours to hide.
  if (isError(error, "TIMEOUT"))
    return new ApiError(504, "RPC_TIMEOUT", "Chain RPC timed out", "The chain's RPC did not answer in time");
  if (isError(error, "NETWORK_ERROR") || isError(error, "SERVER_ERROR")) {
    return new ApiError(502, "RPC_UNAVAILABLE", "Chain RPC unavailable", "The chain's RPC could not be reached");
  }
  // The node answered, but not as the contract read expects (no Multicall3 there, a malformed answer).
  if (isError(error, "BAD_DATA") || error instanceof ChainReadError) {
    return new ApiError(502, "CHAIN_READ_FAILED", "Chain read failed", "The chain's answer could not be read");
  }
  // Read-only, full, failing or locked storage: the failed write rolled back and the request may succeed later (a
  // transaction submission safely so with its Idempotency-Key); a 500 would blame the request.
  if (isStorageUnavailable(error)) {
    return new ApiError(
      503,
      "STORAGE_UNAVAILABLE",
      "Storage unavailable",
      "The service could not read or write its storage; try again later",
      {},
      { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) },
    );
  }
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case "entity.too.large":
      return new PayloadTooLargeError(bodyLimit);
    case "entity.parse.failed":
      return new InvalidRequestError("The body is not valid JSON", [], "MALFORMED_JSON");
    case "encoding.unsupported":
      return new InvalidRequestError("The body's Content-Encoding is not supported", [], "UNSUPPORTED_ENCODING");
    case "charset.unsupported":
      return new InvalidRequestError("The body's character set is not supported", [], "UNSUPPORTED_ENCODING");
    case "request.aborted":
    case "request.size.invalid":
      return new InvalidRequestError("The body ended early or its length is wrong");
  }
  // The router's URIError for a malformed %-escape in the path, a body that does not inflate as its
  // Content-Encoding says, and any other client error the HTTP layer marked with a 4xx status.
  if (error instanceof URIError) return new InvalidRequestError("The path has a malformed %-escape");
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new InvalidRequestError("The request could not be read (its body or encoding is malformed)");
  }
  return undefined;
}

/** An RFC 9457 problem ready to send: status, extra headers, body. */
export interface Problem {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/** The problem for anything thrown: an ApiError's own, or a bare 500 that leaks nothing. */
export function problemFor(
  error: unknown,
  instance: string,
  requestId: string | undefined,
  bodyLimit: string,
): Problem {
  const apiError = toApiError(error, bodyLimit);
  const status = apiError?.status ?? 500;
  return {
    status,
    headers: apiError?.headers ?? {},
    body: {
      type: "about:blank",
      title: apiError?.title ?? "Internal server error",
      status,
      code: apiError?.code ?? "INTERNAL",
      ...(apiError ? { detail: apiError.message } : {}),
      ...(apiError?.extensions ?? {}),
      instance,
      ...(requestId !== undefined ? { requestId } : {}),
    },
  };
}

/** Writes a problem: as res.json would, in PROBLEM_JSON, with the problem's own headers (the API's writer). */
export type ProblemWriter = (res: ServerResponse, problem: Problem) => void;

/** The API's problem writer: the problem's headers, then its body as express's res.json sends it (sendJson). */
export const writeProblemJson: ProblemWriter = (res, problem) => {
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  sendJson(res, problem.status, JSON.stringify(problem.body), PROBLEM_JSON);
};

/** What answering a request's problem needs of it: where it was, its id, the body limit, its logger if any. */
export interface ProblemContext {
  /** The problem's `instance`: the request's URL (as the transport reads it). */
  readonly instance: string;
  readonly requestId: string | undefined;
  /** BODY_LIMIT, named in a 413. */
  readonly bodyLimit: string;
  readonly log: () => Logger | undefined;
}

/**
 * Answers anything thrown while serving a request as its RFC 9457 problem (problemFor, written by `write`), logging
 * only 5xx, at error level; the one problem answer of the express app, the node:http fast paths and the CCIP gateway.
 * An answer already begun is ended instead; one stopped at a commit past its deadline was answered 503 then.
 */
export function answerProblem(
  res: ServerResponse,
  error: unknown,
  context: ProblemContext,
  write: ProblemWriter = writeProblemJson,
): void {
  if (res.headersSent && error instanceof RequestTimeoutError) {
    context.log()?.info("request stopped at its deadline before committing");
    return void res.end();
  }
  const problem = problemFor(error, context.instance, context.requestId, context.bodyLimit);
  if (problem.status >= 500) context.log()?.error({ err: error, code: problem.body.code }, "request failed");
  if (res.headersSent) return void res.end();
  write(res, problem);
}

/** The express app's error middleware (answerProblem): the problem of what a route or middleware passed on. */
export function problemHandler(bodyLimit: string): ErrorRequestHandler {
  return (error, req, res, _next) =>
    answerProblem(res, error, {
      instance: req.originalUrl,
      requestId: req.id === undefined ? undefined : String(req.id),
      bodyLimit,
      log: () => req.log,
    });
}

/** Final route: anything unmatched is a 404 problem. */
export const notFound: RequestHandler = (req, _res, next) =>
  next(new NotFoundError(`No route for ${req.method} ${req.path}`));
