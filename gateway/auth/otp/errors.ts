import { ApiError } from "../../errors/apiError";

/** 429 with Retry-After (also in the body as `retryAfter`); `code` says which limit. */
class TooManyRequestsError extends ApiError {
  constructor(code: string, detail: string, retryAfterSeconds: number) {
    const headers = { "Retry-After": String(retryAfterSeconds) };
    super(429, code, "Too many requests", detail, { retryAfter: retryAfterSeconds }, headers);
  }
}

/** 429 OTP_COOLDOWN: a code was sent to this phone moments ago. */
export class OtpCooldownError extends TooManyRequestsError {
  constructor(cooldownSeconds: number, retryAfterSeconds: number) {
    super(
      "OTP_COOLDOWN",
      `A code was sent to this number less than ${cooldownSeconds} s ago; retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}

/** 429 RATE_LIMITED: too many codes for this phone or from this address in the last hour. */
export class OtpRateLimitedError extends TooManyRequestsError {
  constructor(scope: "phone" | "ip", retryAfterSeconds: number) {
    const who = scope === "phone" ? "for this number" : "from this address";
    super("RATE_LIMITED", `Too many codes requested ${who}; retry in ${retryAfterSeconds} s`, retryAfterSeconds);
  }
}

/** 401 INVALID_OTP: wrong, already used, superseded, or no code at all. */
export class InvalidOtpError extends ApiError {
  constructor(attemptsLeft?: number) {
    super(
      401,
      "INVALID_OTP",
      "Unauthorized",
      attemptsLeft === undefined ? "No valid code for this number; request a new one" : "The code is not correct",
      attemptsLeft === undefined ? {} : { attemptsLeft },
    );
  }
}

/** 401 OTP_EXPIRED: the code outlived its lifetime. */
export class OtpExpiredError extends ApiError {
  constructor() {
    super(401, "OTP_EXPIRED", "Unauthorized", "The code has expired; request a new one");
  }
}

/** 401 OTP_ATTEMPTS_EXCEEDED: too many wrong tries; the code is dead even if the next guess is right. */
export class OtpAttemptsExceededError extends ApiError {
  constructor() {
    super(401, "OTP_ATTEMPTS_EXCEEDED", "Unauthorized", "Too many wrong codes; request a new one");
  }
}
