import type { Config } from "../../config/schema";
import type { Limiter, Limits } from "../../limits/limits";
import { ipBucket, networkBucket } from "../../limits/addressBuckets";
import type { OtpCode, OtpSentSince } from "./storedCode";
import type { OtpRepository } from "./otpRepository";
import type { SmsSender } from "../sms/smsSender";
import type { UserTokens } from "../userTokens";
import { backoffSeconds } from "./backoff";
import {
  InvalidOtpError,
  OtpBackoffError,
  OtpCooldownError,
  OtpExpiredError,
  type OtpLimitScope,
  OtpRateLimitedError,
  SmsBudgetExhaustedError,
} from "./errors";
import { generateOtpCode, hashOtpCode, otpCodeMatches, otpHmacKey } from "./otpCodes";
import { parseLoginPhone } from "./phone";

const HOUR_MS = 3_600_000;
// Rows live long enough for every limit that reads them (cooldown and hourly count, both at most an hour).
const RETENTION_MS = 24 * HOUR_MS;

/** A signed-in phone user (spec §4.6). */
export interface OtpSession {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly user: { readonly id: string; readonly phone: string };
}

/**
 * The request's deadline as phone login sees it: each commit point (storing a code, sending it, recording a try) runs
 * through `commit`, which refuses to begin once the request has answered 503 (accept/requestDeadline.ts).
 */
export interface CommitDeadline {
  commit<T>(work: () => Promise<T>): Promise<T>;
}

/** Phone login (spec §4.5, §4.6): send a code, trade the right code for a user token. */
export interface OtpService {
  /**
   * Stores and sends a fresh code to `phone`, or neither once `deadline` has passed; throws InvalidPhoneError,
   * OtpCooldownError, OtpRateLimitedError, SmsBudgetExhaustedError, SmsDeliveryFailedError.
   */
  requestCode(phone: string, clientIp: string | undefined, deadline: CommitDeadline): Promise<{ messageId: string }>;
  /**
   * Checks `code` against the phone's unexpired codes, recording the try, unless `deadline` has passed, and issues a
   * user token, bound to `appId` when the app that asked authenticated; throws InvalidOtpError, OtpExpiredError,
   * OtpBackoffError, OtpRateLimitedError.
   */
  verifyCode(
    phone: string,
    code: string,
    clientIp: string | undefined,
    deadline: CommitDeadline,
    appId?: string,
  ): Promise<OtpSession>;
}

type Refusal =
  | { kind: "cooldown"; sentSecondsAgo: number; retryAfterSeconds: number }
  | { kind: "budget" | "reserve"; retryAfterSeconds: number };
type Verdict =
  | { kind: "ok" }
  | { kind: "invalid" }
  | { kind: "wrong"; retryAfterSeconds: number }
  | { kind: "backoff"; retryAfterSeconds: number }
  | { kind: "expired" };

const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
const describeTtl = (seconds: number): string =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? "" : "s"}` : `${seconds} seconds`;

/** The OTP service over its store, SMS sender and token issuer; `clock` times codes and limits. */
export function createOtpService(deps: {
  config: Pick<Config, "otp" | "auth">;
  repository: OtpRepository;
  sms: SmsSender;
  userTokens: UserTokens;
  /** Where the per-address, per-network and per-app limits are counted (the database: shared by every instance). */
  limits: Limits;
  clock: () => Date;
}): OtpService {
  const { otp } = deps.config;
  const key = otpHmacKey({ hmacSecret: otp.hmacSecret, tokenSecret: deps.config.auth.tokenSecret });
  // Counted through `limits`: in the database, so every process and instance shares each count (issue 20), like the
  // per-phone limits, which the codes' own rows keep. Keys are ipBucket()s: an IPv6 client is one /64, not one address.
  const hourly = (name: string, points: number) => deps.limits.limiter({ name, points, windowSeconds: 3600 });
  const perIp = hourly("otp.request.ip", otp.perIpPerHour);
  // An IPv4 /24 or IPv6 /48: a client holding many addresses (a /56 at home holds 256 /64s) must not spend the
  // service's whole SMS budget, which would stop phone login for everyone.
  const perNetwork = hourly("otp.request.network", otp.perNetworkPerHour);
  // A network's first codes of the hour: only these may draw on the budget's reserve, so an outsider who spends the
  // rest from a few networks leaves room for everyone else; taking the reserve too needs reserved / smsReservePerNetwork
  // more networks (docs/auth.md, "What an outsider can do").
  const reserved = otp.smsReservedPerHour ?? Math.floor(otp.smsPerHour / 4);
  const firstOfNetwork = hourly("otp.request.network.first", otp.smsReservePerNetwork);
  const verifyPerIp = hourly("otp.verify.ip", otp.verifyPerIpPerHour);
  // An app that binds tokens calls verifyOTP from its backend for all its users: one address, its own budget.
  const verifyPerApp = hourly("otp.verify.app", otp.verifyPerAppPerHour);

  const consume = async (limiter: Limiter, key: string, scope: OtpLimitScope) => {
    const verdict = await limiter.hit(key);
    if (!verdict.allowed) throw new OtpRateLimitedError(scope, verdict.retryAfterSeconds);
  };

  /**
   * The service's SMS in the last hour (the operator's bill; its reserve only for a network's first codes), then the
   * number's wait since its newest code.
   */
  const admit = (
    now: number,
    recent: readonly OtpCode[],
    sent: OtpSentSince,
    mayUseReserve: boolean,
  ): Refusal | undefined => {
    const open = otp.smsPerHour - (mayUseReserve ? 0 : reserved);
    if (sent.count >= open) {
      // At least until the oldest leaves the hour; exact when the budget was just reached.
      const oldest = sent.oldestAt === undefined ? now : Date.parse(sent.oldestAt);
      const kind = sent.count >= otp.smsPerHour ? "budget" : "reserve";
      return { kind, retryAfterSeconds: secondsUntil(oldest + HOUR_MS - now) };
    }
    // The wait doubles with each code of the hour (the formula of the wrong-code backoff), up to a maximum no longer
    // than a code lives: while a number waits, its newest code still works, and that code reached the number's owner
    // whoever asked for it. So asking for codes never keeps the owner out; it only spaces the SMS (at most 15 an hour
    // with the defaults). A used newest code (a login ended it, or its SMS failed) imposes no wait.
    const latest = recent.at(-1);
    if (latest && !latest.used) {
      const inHour = recent.filter((code) => Date.parse(code.createdAt) > now - HOUR_MS).length;
      const wait = backoffSeconds(inHour, otp.resendCooldownSeconds, otp.resendCooldownMaxSeconds);
      const sentAt = Date.parse(latest.createdAt);
      if (now < sentAt + wait * 1000) {
        const sentSecondsAgo = Math.floor((now - sentAt) / 1000);
        return { kind: "cooldown", sentSecondsAgo, retryAfterSeconds: secondsUntil(sentAt + wait * 1000 - now) };
      }
    }
    return undefined;
  };

  return {
    async requestCode(phoneInput, clientIp, deadline) {
      const phone = parseLoginPhone(phoneInput);
      await consume(perIp, ipBucket(clientIp), "ip");
      await consume(perNetwork, networkBucket(clientIp), "network");
      const mayUseReserve = (await firstOfNetwork.hit(networkBucket(clientIp))).allowed;
      const now = deps.clock().getTime();
      const code = generateOtpCode();
      // The commit point: the code is stored, then sent. A request past its deadline does neither, so no SMS goes
      // out for a request already answered 503; one that stored its code in time sends it and answers normally.
      const stored = await deadline.commit(() =>
        deps.repository.issue(
          {
            phone: phone.digits,
            codeHash: hashOtpCode(key, phone.digits, code),
            createdAt: new Date(now).toISOString(),
            expiresAt: new Date(now + otp.ttlSeconds * 1000).toISOString(),
          },
          new Date(now - HOUR_MS),
          (recent, sent) => admit(now, recent, sent, mayUseReserve),
        ),
      );
      if ("refused" in stored) {
        const refused = stored.refused;
        if (refused.kind === "cooldown") throw new OtpCooldownError(refused.sentSecondsAgo, refused.retryAfterSeconds);
        throw new SmsBudgetExhaustedError(refused.retryAfterSeconds, refused.kind === "reserve");
      }
      await deps.repository.deleteCreatedBefore(new Date(now - RETENTION_MS));
      const text = `Your idwallet code is ${code}. It expires in ${describeTtl(otp.ttlSeconds)}. Do not share it.`;
      try {
        return await deadline.commit(() => deps.sms.send(phone.e164, text));
      } catch (error) {
        // A code the user may never have received must not verify. It still counts toward the limits: after a
        // timeout the provider may have sent it after all.
        await deps.repository.invalidate(stored.issued.id);
        throw error;
      }
    },

    async verifyCode(phoneInput, code, clientIp, deadline, appId) {
      const phone = parseLoginPhone(phoneInput);
      // With an app's bearer the app's budget counts, not its backend's address: else any user of the app's login
      // form could spend that address's tries and keep every other user of the app out. The per-phone backoff
      // bounds guessing either way.
      if (appId === undefined) await consume(verifyPerIp, ipBucket(clientIp), "verify-ip");
      else await consume(verifyPerApp, appId, "verify-app");
      const now = deps.clock().getTime();
      const wait = (failures: number) => backoffSeconds(failures, otp.backoffBaseSeconds, otp.backoffMaxSeconds);
      // Decide and record in one transaction; throw only after it commits, so a wrong try is always counted. The
      // commit point: past the deadline the codes are neither judged nor used up (the client saw 503, learned nothing).
      const verdict = await deadline.commit(() =>
        deps.repository.attempt<Verdict>(phone.digits, new Date(now), ({ latest, live }) => {
          if (!latest) return { result: { kind: "invalid" } };
          // The codes sent in the last TTL stay usable: whoever asked for the newest, the user may be typing an older.
          if (live.length === 0) {
            const expired = !latest.used && now >= Date.parse(latest.expiresAt);
            return { result: { kind: expired ? "expired" : "invalid" } };
          }
          // A try during the wait is not judged at all: judging it would let guesses through at full speed.
          const readyAt = latest.lastFailedAt ? Date.parse(latest.lastFailedAt) + wait(latest.attempts) * 1000 : 0;
          if (now < readyAt) return { result: { kind: "backoff", retryAfterSeconds: secondsUntil(readyAt - now) } };
          // Every live code is compared (no early exit), each in constant time.
          const matches = live.map((stored) => otpCodeMatches(key, phone.digits, code, stored.codeHash));
          if (matches.includes(true)) return { result: { kind: "ok" }, mark: { kind: "used" } };
          return {
            result: { kind: "wrong", retryAfterSeconds: wait(latest.attempts + 1) },
            mark: { kind: "failedAttempt", at: new Date(now).toISOString() },
          };
        }),
      );
      switch (verdict.kind) {
        case "invalid":
          throw new InvalidOtpError();
        case "wrong":
          throw new InvalidOtpError(verdict.retryAfterSeconds);
        case "backoff":
          throw new OtpBackoffError(verdict.retryAfterSeconds);
        case "expired":
          throw new OtpExpiredError();
      }
      const userId = `tel:${phone.digits}`;
      const { token, expiresIn } = await deps.userTokens.issue(userId, appId === undefined ? {} : { appId });
      return { accessToken: token, expiresIn, user: { id: userId, phone: phone.e164 } };
    },
  };
}
