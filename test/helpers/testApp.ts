import pino, { type Logger } from "pino";
import golden from "../vectors/addresses.json";
import { type AppDeps, createApp } from "../../gateway/app";
import { createAuditLog } from "../../gateway/custody/audit";
import { testCustody } from "./keySigners";
import { createAppTokens } from "../../gateway/auth/appTokens";
import type { ChainClient } from "../../gateway/chains/clients";
import { loadConfig } from "../../gateway/config/load";
import type { Config } from "../../gateway/config/schema";
import { createSecretsKeyring } from "../../gateway/crypto/secretsKeyring";
import { createKnownProviders } from "../../gateway/identity/knownProviders";
import { createMaintenanceMonitor } from "../../gateway/config/maintenanceMonitor";
import { createOtpService } from "../../gateway/auth/otp/otpService";
import { createSharedLimits } from "../../gateway/limits/sharedLimits";
import { createUserTokens } from "../../gateway/auth/userTokens";
import { openDatabase } from "../../gateway/storage/database";
import { CapturingSms } from "./capturingSms";
import { IDWALLET_SALT, creationCode } from "../../scripts/deployment/deployIdwallet";
import { deterministicAddress } from "../../scripts/deployment/deterministic";
import { OwnerAccount__factory } from "../../typechain-types";
import { type Repositories, createRepositories } from "../../gateway/storage/repositories";
import type { SmsSender } from "../../gateway/auth/sms/smsSender";

/**
 * An object whose async methods wait for `target` first: lets a synchronous builder hand out a repository
 * whose database is still opening.
 */
function deferred<T extends object>(target: Promise<T>): T {
  return new Proxy({} as T, {
    get:
      (_t, method) =>
      async (...args: unknown[]) => {
        const resolved = (await target) as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return resolved[method]!(...args);
      },
  });
}

/** Fixed time of every API test. */
export const TEST_NOW = new Date("2026-11-22T12:00:00.000Z");
/** Token signing secret of the test app. */
export const TEST_TOKEN_SECRET = "test-token-secret-of-at-least-32-characters";
/** SECRETS_KEY of the test app: seals the HS256 provider secrets tests register. */
export const TEST_SECRETS_KEY = "5ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2e75ec2";

/** The reference deployment's owner account: where the golden vectors' admin puts it on every chain. */
export const TEST_OWNER_ACCOUNT = deterministicAddress(
  creationCode(OwnerAccount__factory, golden.admin),
  IDWALLET_SALT,
);

/** Builds the real app for API tests: reference factories, fixed clock, a settable maintenance switch. */
export function buildTestApp(
  overrides: Record<string, unknown> = {},
  options: {
    /** The chain clients, or how to build them from the app's configuration (as start-up builds them). */
    chains?: ReadonlyMap<string, ChainClient> | ((config: Config) => ReadonlyMap<string, ChainClient>);
    pingDatabase?: () => Promise<void>;
    logger?: Logger;
    /** Chains whose transaction requests are accepted (as if their worker were configured). */
    txChains?: readonly string[];
    /** A database file to share with other app instances (as the processes of a cluster do); default: in memory. */
    databasePath?: string;
    /** The SMS provider; default: a CapturingSms (returned as `sms`). */
    sms?: SmsSender;
    /** What the service gets instead of the repositories (e.g. slowed ones); `repositories` stays the real ones. */
    serviceRepositories?: (real: Repositories) => Repositories;
  } = {},
) {
  const config = loadConfig(
    {},
    {
      // The outbox SMS provider (the default) is allowed only on a test deployment.
      testDeployment: true,
      auth: { tokenSecret: TEST_TOKEN_SECRET },
      secrets: { key: TEST_SECRETS_KEY },
      contracts: {
        kernelFactory: golden.kernelFactory,
        baseFactory: golden.baseFactory,
        ownerAccount: TEST_OWNER_ACCOUNT,
      },
      ...overrides,
    },
  );
  let clock = TEST_NOW;
  const stored = { enabled: false as boolean, message: undefined as string | undefined };
  const maintenance = createMaintenanceMonitor({
    configured: config.maintenance,
    store: { getMaintenance: async () => ({ ...stored }) },
    intervalMs: 60_000,
  });
  const sms = new CapturingSms();
  const userTokens = createUserTokens({
    secret: config.auth.tokenSecret,
    issuer: config.auth.issuer,
    clock: () => clock,
    ttlSeconds: config.otp.userTokenTtlSeconds,
  });
  const tokens = createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock: () => clock });
  // A fresh in-memory database per app unless told to share a file; opened at once, awaited by whoever needs it.
  const database = openDatabase(options.databasePath ?? ":memory:");
  const secrets = createSecretsKeyring(config.secrets);
  const baseRepositories = database.then((d) => createRepositories(d.db, () => clock, { secrets }));
  const knownProviders = createKnownProviders({
    store: deferred(baseRepositories.then((r) => r.providers)),
    intervalMs: 60_000,
  });
  // The service polls the registered names; a test sees its own registrations and removals at once.
  const repositories = baseRepositories.then((r) => {
    const register: typeof r.providers.register = async (...args) => {
      const registered = await r.providers.register(...args);
      await knownProviders.refresh();
      return registered;
    };
    const remove: typeof r.providers.remove = async (provider) => {
      const removed = await r.providers.remove(provider);
      await knownProviders.refresh();
      return removed;
    };
    return { ...r, providers: Object.assign(Object.create(r.providers) as typeof r.providers, { register, remove }) };
  });
  const served = repositories.then((r) => options.serviceRepositories?.(r) ?? r);
  // Counted in the app's database, like the service's: apps built over one file or URL share their limits.
  const limits = createSharedLimits({ counters: deferred(served.then((r) => r.limitCounters)), clock: () => clock });
  const deps: AppDeps = {
    config,
    clock: () => clock,
    logger: options.logger ?? pino({ level: "silent" }),
    tokens,
    maintenance,
    chains: typeof options.chains === "function" ? options.chains(config) : (options.chains ?? new Map()),
    pingDatabase: options.pingDatabase ?? (async () => undefined),
    apps: deferred(served.then((r) => r.apps)),
    otp: createOtpService({
      config,
      repository: deferred(served.then((r) => r.otp)),
      sms: options.sms ?? sms,
      userTokens,
      limits,
      clock: () => clock,
    }),
    userTokens,
    providers: deferred(served.then((r) => r.providers)),
    knownProviders,
    transactions: deferred(served.then((r) => r.transactions)),
    safes: deferred(served.then((r) => r.safes)),
    dust: deferred(served.then((r) => r.dust)),
    webhooks: deferred(served.then((r) => r.webhooks)),
    rateWindows: deferred(served.then((r) => r.rateWindows)),
    limits,
    txWorkers: { chains: new Set(options.txChains ?? []), wake: () => undefined },
    // The operator console's stores: served when the overrides configure it (CONSOLE_TOKEN, CONSOLE_ENABLED).
    console: {
      console: deferred(served.then((r) => r.console)),
      reads: deferred(served.then((r) => r.consoleReads)),
      apps: deferred(served.then((r) => r.apps)),
      settings: deferred(served.then((r) => r.settings)),
      providers: deferred(served.then((r) => r.providers)),
      auditLog: deferred(served.then((r) => r.auditLog)),
    },
    custody: testCustody(
      config,
      createAuditLog(deferred(served.then((r) => r.auditLog)), () => clock),
    ),
  };
  const app = createApp(deps);
  return {
    app,
    /** What the app was built from (the resolver's fast-path tests build the express app alone from it too). */
    deps,
    config,
    tokens,
    setClock: (date: Date) => {
      clock = date;
    },
    setStoredMaintenance: async (enabled: boolean, message?: string) => {
      stored.enabled = enabled;
      stored.message = message;
      await maintenance.refresh();
    },
    repositories,
    /** The app's cache of registered providers (the CCIP gateway of a test service reads it too). */
    knownProviders,
    /** The database itself, for tests that write a row as an older version of the service left it. */
    database,
    sms,
    userTokens,
    /** Registers an app (test mode unless told otherwise) and issues it a token. */
    appWithToken: async (name = "test app", testMode = true) => {
      const { app: registered, clientSecret } = await (await repositories).apps.create({ name, testMode });
      const { token } = await tokens.issue(registered);
      return { app: registered, clientSecret, token };
    },
    close: () => {
      maintenance.stop();
      knownProviders.stop();
      void database.then((d) => d.close());
    },
  };
}
