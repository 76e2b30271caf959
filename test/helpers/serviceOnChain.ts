import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Wallet, computeAddress, parseEther } from "ethers";
import { createAppTokens } from "../../gateway/auth/appTokens";
import { createUserTokens } from "../../gateway/auth/userTokens";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { type Deployment, deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { type ChainNode, startChainNode } from "../../scripts/localStack/chainNode";
import { devKey } from "../../scripts/localStack/devKeys";
import { deploySafeContracts } from "../../scripts/deployment/deploySafe";
import { DEFAULT_ENS_DOMAIN, deployTestEnsDomain } from "../../scripts/deployment/ensDomain";
import { installMulticall3 } from "../../scripts/localStack/multicall3";
import { databaseEnv, serviceDatabase } from "./testDatabase";

const SECRET = "crash-test-token-secret-of-32-characters-or-more";

/** The service's transaction keys (private keys, 0x-hex). */
export interface ServiceKeys {
  readonly walletSigner: string;
  readonly sponsorSigner: string;
  readonly relayer: string;
  readonly safeOperator: string;
}

/** What a test may do to the fresh chain before the operator deploys idwallet on it. */
export interface ServiceOnChainOptions {
  /** Runs first, on the empty chain: e.g. an outsider deploying some of our contracts ahead of the operator. */
  readonly beforeDeploy?: (chain: ChainNode) => Promise<void>;
  /**
   * Also an ENS domain as on the local stack: the resolver accepts the CCIP signer (dev key 3), a test registry points
   * idwallet.eth at it, and the service's settings name them (the test points the resolver's URLs at the service).
   */
  readonly ens?: boolean;
  /** Keys of the test's own instead of Hardhat's dev accounts (the relayer's is funded). */
  readonly keys?: ServiceKeys;
  /** The chain: Hardhat's node (default), or anvil (it runs the JavaScript tracers an ERC-7562 bundler needs). */
  readonly chainKind?: "hardhat" | "anvil";
}

/**
 * A fresh chain with idwallet deployed, a database with a test-mode app, and the environment that runs the
 * service against them (pointing RPC_URL_LOCALHOST wherever the caller says): for tests that run the service in
 * its own process, kill it and start it again.
 */
export async function prepareServiceOnChain(options: ServiceOnChainOptions = {}) {
  const chain: ChainNode = await startChainNode("127.0.0.1", 0, { kind: options.chainKind ?? "hardhat" });
  await options.beforeDeploy?.(chain);
  const admin = await chain.provider.getSigner(0);
  // The local stack's dev keys, each in the same role, unless the test brings its own.
  const keys: ServiceKeys & { readonly ccipSigner?: string } = options.keys ?? {
    walletSigner: devKey(1),
    sponsorSigner: devKey(2),
    relayer: devKey(4),
    safeOperator: devKey(5),
    ...(options.ens ? { ccipSigner: devKey(3) } : {}),
  };
  const relayer = new Wallet(keys.relayer);
  if (options.keys) await (await admin.sendTransaction({ to: relayer.address, value: parseEther("100") })).wait();
  const deployment: Deployment = await deployIdwallet(admin, {
    admin: await admin.getAddress(),
    walletSigners: [computeAddress(keys.walletSigner)],
    sponsorSigners: [computeAddress(keys.sponsorSigner)],
    ...(keys.ccipSigner ? { ccipSigners: [computeAddress(keys.ccipSigner)] } : {}),
    paymasterDeposit: parseEther("10"),
    // As `npm run deploy` and the local stack do: new wallets start on current code (2.1).
    creatorAsAdmin: true,
  });
  const safe = await deploySafeContracts(admin);
  // As on the local stack: placed without a transaction, so no deployment above moves.
  await installMulticall3(chain.provider);
  const c = deployment.contracts;
  const ensRegistry = options.ens ? await deployTestEnsDomain(admin, DEFAULT_ENS_DOMAIN, c.ensResolver) : undefined;
  const ensEnv: Record<string, string> =
    ensRegistry && keys.ccipSigner
      ? {
          ENS_CHAIN: "localhost",
          ENS_REGISTRY: ensRegistry,
          ENS_RESOLVER: c.ensResolver,
          CONTRACT_ENS_RESOLVER: c.ensResolver,
          CCIP_SIGNER_KEYS: keys.ccipSigner,
        }
      : {};
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-crash-"));
  // A SQLite file in dataDir, or (TEST_DATABASE=postgres) a PostgreSQL database of its own.
  const databaseLocation = await serviceDatabase(dataDir);
  const database = await openDatabase(databaseLocation);
  const { app } = await createRepositories(database.db, () => new Date()).apps.create({
    name: "crash",
    testMode: true,
  });
  await database.close();
  const clock = () => new Date();
  const appToken = (
    await createAppTokens({ secret: SECRET, issuer: "idwallet", audience: "idwallet-api", clock }).issue(app)
  ).token;
  const userTokens = createUserTokens({ secret: SECRET, issuer: "idwallet", clock, ttlSeconds: 3600 });
  /** The service's settings; a DATABASE_URL or DATABASE_PATH in `extra` replaces its database. */
  // The audit log's HMAC key, the custody process's alone: none of the database's users knows it.
  const auditLogKey = randomBytes(32).toString("hex");
  const env = (rpcUrl: string, extra: Record<string, string> = {}): Record<string, string> => ({
    AUTH_TOKEN_SECRET: SECRET,
    AUDIT_LOG_KEY: auditLogKey,
    DATA_DIR: dataDir,
    ...("DATABASE_URL" in extra || "DATABASE_PATH" in extra ? {} : databaseEnv(databaseLocation)),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    RPC_URL_LOCALHOST: rpcUrl,
    RPC_TIMEOUT_MS: "2000",
    CONTRACT_ENTRY_POINT: c.entryPoint,
    CONTRACT_OWNER_ACCOUNT: c.ownerAccount,
    CONTRACT_KERNEL_FACTORY: c.kernelFactory,
    CONTRACT_BASE_FACTORY: c.baseFactory,
    CONTRACT_SPONSOR_PAYMASTER: c.sponsorPaymaster,
    CONTRACT_CUSTODY_PAYMASTER: c.custodyPaymaster,
    CONTRACT_KERNEL_CREATOR: c.kernelCreator,
    CONTRACT_WALLET_IMPLEMENTATIONS: c.kernelCurrentImplementation,
    WALLET_SIGNER_KEY: keys.walletSigner,
    SPONSOR_SIGNER_KEY: keys.sponsorSigner,
    RELAYER_SIGNER_KEY: keys.relayer,
    TX_POLL_INTERVAL_MS: "50",
    SAFE_OPERATOR_SIGNER_KEY: keys.safeOperator,
    CONTRACT_SAFE_SINGLETON: safe.singleton,
    CONTRACT_SAFE_PROXY_FACTORY: safe.proxyFactory,
    CONTRACT_SAFE_FALLBACK_HANDLER: safe.fallbackHandler,
    CONTRACT_SAFE_MULTISEND_CALL_ONLY: safe.multiSendCallOnly,
    ...ensEnv,
    ...extra,
  });
  return {
    chain,
    deployment,
    safe,
    relayer: relayer.address,
    /** The private key of each custody key the service's settings hold. */
    keys,
    /** The test ENS registry, when asked for. */
    ensRegistry,
    /** The service's database: a SQLite file or a postgres:// URL (the admin CLI's --db, openDatabase's argument). */
    database: databaseLocation,
    appId: app.id,
    appToken,
    /** A phone-login token for `tel:<digits>`, as verifyOTP would issue. */
    userToken: async (userId: string) => (await userTokens.issue(userId)).token,
    /** AUDIT_LOG_KEY of the service's settings, which `audit verify` needs too. */
    auditLogKey,
    env,
  };
}
