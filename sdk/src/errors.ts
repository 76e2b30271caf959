import type { components } from "./generated/openapi.js";

/** An RFC 9457 problem as the service answers every error. */
export type Problem = components["schemas"]["Problem"];

/** A stable code of the service's problems (one of the codes its OpenAPI document lists). */
export type ProblemCode = Problem["code"];

/** The code given to an error answer that is not a problem of the service (e.g. a proxy's HTML page). */
export const UNEXPECTED_RESPONSE = "UNEXPECTED_RESPONSE";

/** Every refusal or failure the service answers, thrown by each client method. */
export class IdwalletError extends Error {
  override readonly name = "IdwalletError";
  /** The HTTP status. */
  readonly status: number;
  /** The service's stable code, or UNEXPECTED_RESPONSE when the answer was not a problem. */
  readonly code: ProblemCode | typeof UNEXPECTED_RESPONSE;
  /** The request id the service logged it under (also sent as X-Request-Id). */
  readonly requestId: string | undefined;
  /** The whole problem, with any extension fields (`errors`, `calls`, `rule`, `retryAfter`, …). */
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined, requestId?: string, why = "not a problem answer") {
    super(problem ? `${problem.code}: ${problem.detail ?? problem.title}` : `HTTP ${status}: ${why}`);
    this.status = status;
    this.code = problem?.code ?? UNEXPECTED_RESPONSE;
    this.requestId = problem?.requestId ?? requestId;
    this.problem = problem;
  }
}

/** Thrown when a wait for a request to end outlasts its bound; `last` is the request as last seen (if it was). */
export class WaitTimeoutError<T> extends Error {
  override readonly name = "WaitTimeoutError";
  constructor(
    readonly last: T,
    timeoutMs: number,
  ) {
    super(`still not final after ${timeoutMs} ms`);
  }
}

/**
 * A success answer that does not answer what was asked (another request's record, another hash's signature, fewer
 * users than ids): a proxy's or cache's mix-up, or a service not to be trusted. Thrown, never used.
 */
export function unexpectedAnswer(why: string): IdwalletError {
  return new IdwalletError(200, undefined, undefined, why);
}

/** Whether a parsed error body is one of the service's problems. */
export function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && typeof (body as Problem).code === "string";
}

/** The error a failed exchange throws: the service's problem when it sent one. */
export function errorOf(response: Response, body: unknown): IdwalletError {
  return new IdwalletError(
    response.status,
    isProblem(body) ? body : undefined,
    response.headers.get("x-request-id") ?? undefined,
  );
}
