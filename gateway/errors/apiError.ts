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

/** 401: missing, malformed, expired or forged credentials (RFC 6750 challenge attached). */
export class UnauthorizedError extends ApiError {
  constructor(code: ErrorCode, detail: string) {
    super(
      401,
      code,
      "Unauthorized",
      detail,
      {},
      { "WWW-Authenticate": `Bearer realm="idwallet", error="invalid_token"` },
    );
  }
}

/** 404: nothing at this path. */
export class NotFoundError extends ApiError {
  constructor(detail = "No such resource") {
    super(404, "NOT_FOUND", "Not found", detail);
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
