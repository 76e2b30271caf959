import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JsonRpcProvider } from "ethers";
import { sql } from "kysely";
import pino from "pino";
import golden from "../../vectors/addresses.json";
import { createApp } from "../../../gateway/app";
import { createAuditLog } from "../../../gateway/custody/audit";
import { testCustody } from "../../helpers/keySigners";
import { createAppTokens } from "../../../gateway/auth/appTokens";
import { createSharedLimits } from "../../../gateway/limits/sharedLimits";
import { createOtpService } from "../../../gateway/auth/otp/otpService";
import { createUserTokens } from "../../../gateway/auth/userTokens";
import { createSecretsKeyring } from "../../../gateway/crypto/secretsKeyring";
import { loadConfig } from "../../../gateway/config/load";
import { createKnownProviders } from "../../../gateway/identity/knownProviders";
import { createMaintenanceMonitor } from "../../../gateway/config/maintenanceMonitor";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { CapturingSms } from "../../helpers/capturingSms";
import { hs256Provider } from "../../helpers/providerProofs";

const TOKEN_SECRET = "storage-fault-token-secret-of-32-characters";

/** The provider the test app owns: its ids take a blank `auth` in test mode. */
export const STORAGE_TEST_PROVIDER = "acme";

/**
 * The real app over a SQLite file the test holds the handle of, opened as the service opens it (WAL, FULL sync,
 * migrations): the test can then make that very connection refuse writes (`PRAGMA query_only`), run out of room
 * (`PRAGMA max_page_count`) or wait on another writer's lock, while requests go through the whole app. A
 * test-mode app owning provider `acme` and its token are ready; `localhost` takes transactions (no worker runs).
 */
export async function buildStorageFaultApp() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-storage-")), "idwallet.sqlite");
  const database = await openDatabase(file);
  const clock = () => new Date();
  const config = loadConfig(
    {},
    {
      testDeployment: true,
      auth: { tokenSecret: TOKEN_SECRET },
      secrets: { key: "f0".repeat(32) },
      contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
    },
  );
  const repositories = createRepositories(database.db, clock, { secrets: createSecretsKeyring(config.secrets) });
  const maintenance = createMaintenanceMonitor({
    configured: config.maintenance,
    store: repositories.settings,
    intervalMs: 60_000,
  });
  const knownProviders = createKnownProviders({ store: repositories.providers, intervalMs: 60_000 });
  const userTokens = createUserTokens({
    secret: config.auth.tokenSecret,
    issuer: config.auth.issuer,
    clock,
    ttlSeconds: config.otp.userTokenTtlSeconds,
  });
  const tokens = createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock });
  const sms = new CapturingSms();
  // Accepting a request touches no chain: this client is never called.
  const localhost = {
    name: "localhost",
    chainId: 31337,
    provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
  };
  const limits = createSharedLimits({ counters: repositories.limitCounters, clock });
  const app = createApp({
    config,
    clock,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    tokens,
    maintenance,
    chains: new Map([["localhost", localhost]]),
    pingDatabase: async () => void (await sql`select 1`.execute(database.db)),
    apps: repositories.apps,
    otp: createOtpService({ config, repository: repositories.otp, sms, userTokens, limits, clock }),
    userTokens,
    providers: repositories.providers,
    knownProviders,
    transactions: repositories.transactions,
    safes: repositories.safes,
    dust: repositories.dust,
    webhooks: repositories.webhooks,
    rateWindows: repositories.rateWindows,
    limits,
    txWorkers: { chains: new Set(["localhost"]), wake: () => undefined },
    custody: testCustody(config, createAuditLog(repositories.auditLog, clock)),
  });
  const { app: registered } = await repositories.apps.create({ name: "storage faults", testMode: true });
  await repositories.providers.register(
    registered.id,
    STORAGE_TEST_PROVIDER,
    hs256Provider("storage-fault-proof-secret-of-32-chars"),
  );
  await knownProviders.refresh();
  const { token } = await tokens.issue(registered);
  return {
    app,
    /** The service's own connection: a pragma set here applies to every request. */
    db: database.db,
    file,
    token,
    sms,
    close: async () => {
      maintenance.stop();
      knownProviders.stop();
      localhost.provider.destroy();
      await database.close();
    },
  };
}
