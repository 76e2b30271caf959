import express, { type Express } from "express";
import type { AppPrincipal } from "../../../../gateway/auth/appTokens";
import { admitAppToken } from "../../../../gateway/auth/appAuth";
import type { Logger } from "pino";
import { createAppTokens } from "../../../../gateway/auth/appTokens";
import { createOtpService } from "../../../../gateway/auth/otp/otpService";
import { createSharedLimits } from "../../../../gateway/limits/sharedLimits";
import { createUserTokens, type UserTokens } from "../../../../gateway/auth/userTokens";
import { CapturingSms } from "../../../helpers/capturingSms";
import { capturingLogger } from "../../../helpers/capturingLogger";
import type { SmsSender } from "../../../../gateway/auth/sms/smsSender";
import { loadConfig } from "../../../../gateway/config/load";
import type { Config } from "../../../../gateway/config/schema";
import { notFound, problemHandler } from "../../../../gateway/http/problemHandler";
import { createLogger, requestLogging } from "../../../../gateway/http/logging";
import { requestTimeout } from "../../../../gateway/http/requestTimeout";
import { otpRouter } from "../../../../gateway/routes/otp";
import { openDatabase, type Database } from "../../../../gateway/storage/database";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { manualClock, type ManualClock } from "../../storage/builders";

export const OTP_NOW = "2026-11-22T12:00:00.000Z";
export const TOKEN_SECRET = "test-token-secret-of-at-least-32-characters";
const FACTORY = "0x0000000000000000000000000000000000000001";

/** An app serving only the OTP router, over a fresh :memory: database, a manual clock and `sms`. */
export interface OtpHarness {
  readonly app: Express;
  readonly config: Config;
  readonly database: Database;
  readonly clock: ManualClock;
  readonly userTokens: UserTokens;
  close(): Promise<void>;
}

/** Builds the harness; `otp` overrides the OTP settings, `sms` defaults to a {@link CapturingSms}. */
export async function buildOtpHarness(
  options: { otp?: Record<string, unknown>; sms?: SmsSender; logger?: Logger; trustProxy?: unknown } = {},
): Promise<OtpHarness> {
  const config = loadConfig(
    {},
    {
      testDeployment: true,
      trustProxy: options.trustProxy ?? false,
      auth: { tokenSecret: TOKEN_SECRET },
      contracts: { kernelFactory: FACTORY, baseFactory: FACTORY },
      otp: options.otp ?? {},
    },
  );
  const clock = manualClock(OTP_NOW);
  const database = await openDatabase(":memory:");
  const repos = createRepositories(database.db, clock.now);
  const userTokens = createUserTokens({
    secret: config.auth.tokenSecret,
    issuer: config.auth.issuer,
    clock: clock.now,
    ttlSeconds: config.otp.userTokenTtlSeconds,
  });
  const otp = createOtpService({
    config,
    repository: repos.otp,
    sms: options.sms ?? new CapturingSms(),
    userTokens,
    limits: createSharedLimits({ counters: repos.limitCounters, clock: clock.now }),
    clock: clock.now,
  });
  const app = express();
  app.set("trust proxy", typeof config.trustProxy === "object" ? [...config.trustProxy] : config.trustProxy);
  app.use(requestLogging(options.logger ?? createLogger("silent")));
  app.use(requestTimeout(config.requestTimeoutMs, problemHandler(config.bodyLimit)));
  const tokens = createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock: clock.now });
  const admitApp = (principal: AppPrincipal) => admitAppToken((appId) => repos.apps.findById(appId), principal);
  app.use(otpRouter({ otp, bodyLimit: config.bodyLimit, tokens, admitApp }));
  app.use(notFound);
  app.use(problemHandler(config.bodyLimit));
  return { app, config, database, clock, userTokens, close: () => database.close() };
}

export { CapturingSms, capturingLogger };
