import { ApiError, TooManyRequestsError } from "../../errors/apiError";

/** 429 OTP_COOLDOWN: this number got a code moments ago, still usable, and must wait for the next (docs/auth.md). */
export class OtpCooldownError extends TooManyRequestsError {
  constructor(sentSecondsAgo: number, retryAfterSeconds: number) {
    super(
      "OTP_COOLDOWN",
      `A code was sent to this number ${sentSecondsAgo} s ago and still works; enter it, or retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}

/** What a 429 RATE_LIMITED of phone login counted. */
export type OtpLimitScope = "ip" | "network" | "verify-ip" | "verify-app";

/** 429 RATE_LIMITED: too many codes from this address or network, or too many tries from an address or app. */
export class OtpRateLimitedError extends TooManyRequestsError {
  constructor(scope: OtpLimitScope, retryAfterSeconds: number) {
    const what = {
      ip: "Too many codes requested from this address",
      network: "Too many codes requested from this network",
      "verify-ip": "Too many codes tried from this address",
      "verify-app": "Too many codes tried through this app",
    }[scope];
    super("RATE_LIMITED", `${what}; retry in ${retryAfterSeconds} s`, retryAfterSeconds);
  }
}

/** 429 OTP_BACKOFF: a wrong code was tried for this phone moments ago; the next try must wait (otp/backoff.ts). */
export class OtpBackoffError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super("OTP_BACKOFF", `A wrong code was tried for this number; retry in ${retryAfterSeconds} s`, retryAfterSeconds);
  }
}

/**
 * 429 SMS_BUDGET_EXHAUSTED: the service sent OTP_SMS_PER_HOUR messages in the last hour, or (`reserve`) all but the
 * OTP_SMS_RESERVED_PER_HOUR kept for networks asking for their first codes, and this network has had its share.
 */
export class SmsBudgetExhaustedError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number, reserve = false) {
    super(
      "SMS_BUDGET_EXHAUSTED",
      reserve
        ? `The service's hourly SMS budget is nearly spent; what is left is kept for networks asking for their first codes; retry in ${retryAfterSeconds} s`
        : `The service has sent its hourly SMS budget; retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}

/** 401 INVALID_OTP: wrong (`retryAfter`: the wait before the next try), already used (or another code of the phone was), or no code. */
export class InvalidOtpError extends ApiError {
  constructor(retryAfterSeconds?: number) {
    super(
      401,
      "INVALID_OTP",
      "Unauthorized",
      retryAfterSeconds === undefined
        ? "No valid code for this number; request a new one"
        : `The code is not correct; the next try is possible in ${retryAfterSeconds} s`,
      retryAfterSeconds === undefined ? {} : { retryAfter: retryAfterSeconds },
    );
  }
}

/** 401 OTP_EXPIRED: the code outlived its lifetime. */
export class OtpExpiredError extends ApiError {
  constructor() {
    super(401, "OTP_EXPIRED", "Unauthorized", "The code has expired; request a new one");
  }
}
