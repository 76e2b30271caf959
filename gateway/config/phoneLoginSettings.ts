import { z } from "zod";
import { int } from "./settingTypes";

/** Phone login's codes, their limits and the user tokens they earn (docs/auth.md, "Users: phone login"). */
export const OtpSettings = z
  .object({
    ttlSeconds: int(30, 3600).default(300),
    /** Wait after a phone's first wrong code; doubles with each further one (otp/backoff.ts). */
    backoffBaseSeconds: int(1, 3600).default(1),
    /** The longest wait between two tries of one phone. */
    backoffMaxSeconds: int(1, 3600).default(60),
    /**
     * Wait after a number's first code of the hour before it can get another; doubles with each further code of the
     * hour, up to resendCooldownMaxSeconds (otp/resendWait.ts).
     */
    resendCooldownSeconds: int(0, 3600).default(30),
    /**
     * The longest wait between two codes of one number; at most ttlSeconds, so a waiting number holds a live code.
     * Default: 300, or ttlSeconds when that is shorter.
     */
    resendCooldownMaxSeconds: int(0, 3600).optional(),
    perIpPerHour: int(1, 100_000).default(30),
    /** Code requests per IPv4 /24 or IPv6 /48 per hour. */
    perNetworkPerHour: int(1, 1_000_000).default(50),
    /** verifyOTP tries per client address (IPv6: per /64) per hour. */
    verifyPerIpPerHour: int(1, 100_000).default(60),
    /** verifyOTP tries per hour sent with an app's bearer token (its backend's calls for all its users). */
    verifyPerAppPerHour: int(1, 10_000_000).default(3600),
    /** SMS sent by the whole service per rolling hour: bounds the operator's bill. */
    smsPerHour: int(1, 10_000_000).default(1000),
    /** The last SMS of the hourly budget, kept for networks asking for their first codes; default a quarter of it. */
    smsReservedPerHour: int(0, 10_000_000).optional(),
    /** Codes of the hour a network (IPv4 /24, IPv6 /48) may have asked for and still draw on the reserve. */
    smsReservePerNetwork: int(1, 1000).default(2),
    /** HMAC key of stored codes; default: derived from AUTH_TOKEN_SECRET. */
    hmacSecret: z.string().min(32, "at least 32 characters").optional(),
    userTokenTtlSeconds: int(60, 86_400).default(3600),
  })
  .transform((s) => ({ ...s, resendCooldownMaxSeconds: s.resendCooldownMaxSeconds ?? Math.min(300, s.ttlSeconds) }))
  // A number waiting for its next code must still hold a live one: the code an outsider had sent reached the owner.
  .refine((s) => s.resendCooldownMaxSeconds <= s.ttlSeconds, {
    message: "must not exceed OTP_TTL_SECONDS: a number waiting for a code must hold a live one",
    path: ["resendCooldownMaxSeconds"],
  })
  .refine((s) => s.smsReservedPerHour === undefined || s.smsReservedPerHour < s.smsPerHour, {
    message: "must be below OTP_SMS_PER_HOUR",
    path: ["smsReservedPerHour"],
  })
  .prefault({});

/** How login codes are sent: the outbox file (local stack and test deployments) or an HTTP SMS provider. */
export const SmsSettings = z
  .object({
    provider: z.enum(["outbox", "http"]).default("outbox"),
    outboxPath: z.string().min(1).optional(),
    httpUrl: z.url().optional(),
    accountSid: z.string().min(1).optional(),
    authToken: z.string().min(1).optional(),
    from: z.string().min(1).optional(),
  })
  .refine((s) => s.provider !== "http" || (s.httpUrl && s.accountSid && s.authToken && s.from), {
    message: "the http SMS provider needs SMS_HTTP_URL, SMS_ACCOUNT_SID, SMS_AUTH_TOKEN and SMS_FROM",
    path: ["provider"],
  })
  .prefault({});
