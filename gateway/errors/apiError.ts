import type { ErrorCode } from "./errorCodes";

/** One field-level problem of an invalid request (RFC 9457 extension member `errors`). */
export interface FieldProblem {
  /** JSON-pointer-like path of the offending field, e.g. "/userIds" or "/userIds/3". */
  readonly pointer: string;
  readonly detail: string;
}

/** An error the client caused or may act on: carries its HTTP status and a stable `code`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly title: string,
    detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail ?? title);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or fails validation. */
export class InvalidRequestError extends ApiError {
  constructor(detail: string, errors: readonly FieldProblem[] = [], code: ErrorCode = "INVALID_REQUEST") {
    super(400, code, "Invalid request", detail, errors.length > 0 ? { errors } : {});
  }
}

/**
 * RFC 6750 §3: the challenge of a 401 where no bearer token failed: none was sent (§3.1: then no error code), or the
 * token was good and the user's `auth` proof was not.
 */
export const BEARER_CHALLENGE = `Bearer realm="idwallet"`;

/** RFC 6750 §3.1 `invalid_token`: a bearer token was sent and is expired, revoked, malformed or forged. */
export const INVALID_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token"`;

/** 401: missing, malformed, expired or forged credentials, with its RFC 6750 challenge (a bad token's by default). */
export class UnauthorizedError extends ApiError {
  constructor(code: ErrorCode, detail: string, challenge: string = INVALID_TOKEN_CHALLENGE) {
    super(401, code, "Unauthorized", detail, {}, { "WWW-Authenticate": challenge });
  }
}

/**
 * 401 for the user's `auth` proof of a wallet action (PROOF_REQUIRED, INVALID_PROOF, PROOF_EXPIRED…): the bearer token
 * was good, so the challenge names no `invalid_token` (RFC 6750 §3.1 speaks of that token).
 */
export class ProofRefusedError extends UnauthorizedError {
  constructor(code: ErrorCode, detail: string) {
    super(code, detail, BEARER_CHALLENGE);
  }
}

/** 404: nothing at this path. */
export class NotFoundError extends ApiError {
  constructor(detail = "No such resource") {
    super(404, "NOT_FOUND", "Not found", detail);
  }
}

/** 405: the path is a route's, the method is not; `Allow` lists the methods it takes (RFC 9110 §15.5.6). */
export class MethodNotAllowedError extends ApiError {
  constructor(method: string, path: string, routeMethods: readonly string[], allow: readonly string[]) {
    super(
      405,
      "METHOD_NOT_ALLOWED",
      "Method not allowed",
      `${path} does not take ${method}: send ${routeMethods.join(" or ")}`,
      {},
      { Allow: allow.join(", ") },
    );
  }
}

/** 413: the body is larger than the configured limit. */
export class PayloadTooLargeError extends ApiError {
  constructor(limit: string) {
    super(413, "PAYLOAD_TOO_LARGE", "Payload too large", `The request body exceeds ${limit}`);
  }
}

/** 415: a body in a media type the endpoint does not read. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(accepted: readonly string[]) {
    super(415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type", `Send the body as ${accepted.join(" or ")}`);
  }
}

/** 429 with Retry-After (also in the body as `retryAfter`); `code` says which limit. */
export class TooManyRequestsError extends ApiError {
  constructor(code: ErrorCode, detail: string, retryAfterSeconds: number) {
    const headers = { "Retry-After": String(retryAfterSeconds) };
    super(429, code, "Too many requests", detail, { retryAfter: retryAfterSeconds }, headers);
  }
}

/** 503: the service is in maintenance; the contracts stay usable on chain. */
export class MaintenanceError extends ApiError {
  constructor(retryAfterSeconds: number, message?: string) {
    super(
      503,
      "MAINTENANCE",
      "Service in maintenance",
      message ?? "The API is down for maintenance; the wallet contracts stay usable on every chain",
      {},
      { "Retry-After": String(retryAfterSeconds) },
    );
  }
}

/** 503 REQUEST_TIMEOUT: the deadline passed before the request committed; it did not and will not take effect. */
export class RequestTimeoutError extends ApiError {
  constructor(ms: number) {
    super(
      503,
      "REQUEST_TIMEOUT",
      "Request timed out",
      `No answer within ${ms} ms; the request did not take effect and will not`,
    );
  }
}
