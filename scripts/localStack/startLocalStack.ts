import path from "node:path";
import { id, parseEther, parseUnits } from "ethers";
import type { Logger } from "pino";
import { configInputOf, loadConfig } from "../../gateway/config/load";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import type { StackKey } from "./devCustody";
import type { Config } from "../../gateway/config/schema";
import { type RunningServer, startServer } from "../../gateway/server";
import { type Deployment, deployIdwallet } from "../deployment/deployIdwallet";
import { type SafeContracts, deploySafeContracts } from "../deployment/deploySafe";
import { deployDeterministic } from "../deployment/deterministic";
import { DEFAULT_ENS_DOMAIN, deployTestEnsDomain } from "../deployment/ensDomain";
import { IdwalletResolver__factory, TestPriceFeed__factory } from "../../typechain-types";
import { openDatabase } from "../../gateway/storage/database";
import { clearChainRecords } from "../../gateway/storage/sql/chainRecords";
import type { ChainNodeKind } from "./chainNode";
import { startLocalChain } from "./chainState";
import { type DemoAppCredentials, demoAppFile, prepareDemoApp } from "./demoApp";
import { prepareDemoDust } from "./demoDust";
import { type DevCustody, prepareDevCustody } from "./devCustody";
import { type DemoTokens, deployDemoTokens } from "./demoTokens";
import { loadDevSecrets } from "./devSecrets";
import { writeLocalStackConfig } from "./localStackConfig";
import { installMulticall3 } from "./multicall3";
import { checkStackPorts, stackPorts } from "./portCheck";
import { localStackLogger, logFormat } from "./readableLog";

/** Where the local stack listens and keeps its data. */
export interface LocalStackOptions {
  readonly host: string;
  readonly rpcPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
  /** HSM mode: the dev keys in a SoftHSM2 token under `<dataDir>/softhsm`, the service signing through PKCS#11. */
  readonly hsm?: boolean;
  /** The chain: Hardhat's in-process node (the default) or anvil in its own process. */
  readonly chainNode?: ChainNodeKind;
  /** Start a new chain and clear the data directory's records of the old one (`npm start -- --fresh`). */
  readonly fresh?: boolean;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default: readable lines to stdout (LOG_FORMAT=json: pino's JSON lines), at LOG_LEVEL. */
  readonly logger?: Logger;
}

/** How many records of the old chain a start cleared, by kind. */
export type ClearedChainRecords = Readonly<Awaited<ReturnType<typeof clearChainRecords>>>;

/** How this start's chain relates to the data directory's records. */
export interface ChainHistory {
  /** true: the chain the records belong to, restored from `<dataDir>/chain-state.json` (anvil). */
  readonly restored: boolean;
  /** Why the chain is new, when it is. */
  readonly newChainReason?: string;
  /** The old chain's records cleared from the data directory because the chain is new (all 0 if there were none). */
  readonly cleared?: ClearedChainRecords;
}

/** A running local stack: chain, contracts, demo app, API. */
export interface LocalStack {
  readonly chainNode: ChainNodeKind;
  readonly rpcUrl: string;
  readonly apiUrl: string;
  readonly config: Config;
  readonly deployment: Deployment;
  /** Safe 1.5.0 contracts of the local chain (the same on every start). */
  readonly safe: SafeContracts;
  readonly demoApp: DemoAppCredentials;
  /** The file holding the demo app's credentials (0600). */
  readonly demoAppFile: string;
  readonly chainHistory: ChainHistory;
  readonly ens: { readonly domain: string; readonly registry: string };
  readonly demoTokens: DemoTokens;
  /** What the dust-order interface reads: Multicall3 at its canonical address, a test ETH/USD feed (8 decimals). */
  readonly dust: { readonly multicall3: string; readonly ethUsdFeed: string };
  /** Each custody key's address, and in HSM mode the token's directory and label. */
  readonly custody: {
    readonly addresses: Readonly<Record<StackKey, string>>;
    readonly hsm?: { readonly dir: string; readonly token: string; readonly configPath: string };
  };
  close(): Promise<void>;
}

/** Hardhat's first dev account: the admin and deployer (the custody keys are the next five, devCustody.ts). */
const DEV_ADMIN = 0;

/** Salt of the local test price feed: fixed, so it sits at the same address on every start. */
const DUST_SALT = id("idwallet:dust:v1");

/** Clears the records of the stack's chain from the database (the chain is new), saying how many there were. */
async function clearLocalChainRecords(location: string): Promise<ClearedChainRecords> {
  const database = await openDatabase(location);
  try {
    return await clearChainRecords(database.db, "localhost");
  } finally {
    await database.close();
  }
}

/**
 * Starts a chain (Hardhat in process, or anvil), deploys every contract deterministically (same addresses on every
 * start), registers the demo app and serves the API. The chain and the data directory stay one: anvil's chain is
 * saved beside the data and restored on the next start; a new chain (Hardhat's every time, a fresh start, a state
 * lost) has the data's records of the old one cleared first. Ports are checked before anything starts. Everything
 * started is stopped if a later step fails.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  await checkStackPorts(options.host, stackPorts(options.apiPort, options.rpcPort, options.env ?? {}));
  // Read now, so a bad value stops the start before anything is deployed.
  const format = logFormat(options.env?.LOG_FORMAT);
  const localChain = await startLocalChain({
    host: options.host,
    port: options.rpcPort,
    dataDir: options.dataDir,
    kind: options.chainNode ?? "hardhat",
    fresh: options.fresh ?? false,
  });
  const chain = localChain.node;
  let server: RunningServer | undefined;
  let custody: DevCustody | undefined;
  try {
    const accounts = await chain.provider.listAccounts();
    const admin = accounts[DEV_ADMIN]!;
    custody = await prepareDevCustody(options.dataDir, options.hsm ?? false);
    const { addresses, rawKeys: raw } = custody;
    const ensDomain = options.env?.ENS_DOMAIN || DEFAULT_ENS_DOMAIN;
    const deployment = await deployIdwallet(admin, {
      admin: admin.address,
      ensDomain,
      walletSigners: [addresses.walletSigner],
      sponsorSigners: [addresses.sponsorSigner],
      ccipSigners: [addresses.ccipSigner],
      paymasterDeposit: parseEther("100"),
      // New wallets start on current code: the creator holds the owner account's admin role.
      creatorAsAdmin: true,
    });
    const ensRegistry =
      localChain.ensRegistry(ensDomain) ??
      (await deployTestEnsDomain(admin, ensDomain, deployment.contracts.ensResolver));
    localChain.adopt({ domain: ensDomain, registry: ensRegistry });
    const demoTokens = await deployDemoTokens(admin);
    // After the test ENS registry: a plain CREATE, its address follows the admin's nonce and would move.
    const safe = await deploySafeContracts(admin);
    // Last, so that no earlier address moves. Multicall3 is placed without a transaction; the feed goes through
    // the deterministic deployment proxy, starting at 3000 USD per ETH in Chainlink's 8 decimals.
    const multicall3 = await installMulticall3(chain.provider);
    const feedDeployment = await new TestPriceFeed__factory().getDeployTransaction(8, parseUnits("3000", 8));
    const ethUsdFeed = await deployDeterministic(admin, feedDeployment.data, DUST_SALT);
    const secrets = loadDevSecrets(options.dataDir);
    const settings = {
      host: options.host,
      port: options.apiPort,
      dataDir: options.dataDir,
      // SQLite in the data directory, unless DATABASE_URL names a PostgreSQL database.
      ...(options.env?.DATABASE_URL ? {} : { databasePath: path.join(options.dataDir, "idwallet.sqlite") }),
      auth: { tokenSecret: secrets.tokenSecret },
      // SECRETS_KEY from the environment wins: a local stack may run on a copy of a deployment's data.
      ...(options.env?.SECRETS_KEY ? {} : { secrets: { key: secrets.secretsKey } }),
      // The same for AUDIT_LOG_KEY: a copy of a deployment's log goes on under the deployment's key.
      ...(options.env?.AUDIT_LOG_KEY ? {} : { auditLogKey: secrets.auditLogKey }),
      // Code 2.1 is chosen: its wallets are built for without a log query.
      contracts: {
        ...deployment.contracts,
        walletImplementations: [deployment.contracts.kernelCurrentImplementation],
      },
      chains: { localhost: { rpcUrl: chain.rpcUrl } },
      // Raw dev keys, or (HSM mode) none: each key setting then names the key in the token.
      walletSignerKey: raw?.walletSigner,
      sponsorSignerKey: raw?.sponsorSigner,
      relayerKey: raw?.relayer,
      custody: custody.hsm?.references ?? {},
      // Global, as on a real deployment: a chain's own CONTRACT_SAFE_*_LOCALHOST setting still wins.
      safe: { operatorKey: raw?.safeOperator, contracts: safe },
      // The dust interface shows the local chain's wallets unless DUST_CHAIN says otherwise.
      dust: { chain: options.env?.DUST_CHAIN || "localhost" },
      // Webhook receivers on this machine (http://127.0.0.1:…), which a deployment refuses.
      webhooks: { allowLoopback: true },
      ens: {
        domain: ensDomain,
        chain: "localhost",
        registry: ensRegistry,
        resolver: deployment.contracts.ensResolver,
        signerKeys: raw ? [raw.ccipSigner] : [],
      },
    };
    const config = loadConfig(options.env ?? {}, settings);
    // What the service was given, for the admin CLI run beside it to read (the same secrets key and webhook rules).
    writeLocalStackConfig(options.dataDir, configInputOf(options.env ?? {}, settings));
    const cleared = localChain.restored ? undefined : await clearLocalChainRecords(databaseLocation(config));
    const demoApp = await prepareDemoApp(config);
    await prepareDemoDust(databaseLocation(config), "localhost", {
      erc20: demoTokens.erc20,
      ethUsdFeed: ethUsdFeed.address,
    });
    server = await startServer(config, { logger: options.logger ?? localStackLogger(config.logLevel, format) });
    const running = server;
    const opened = custody;
    // The gateway's URL is known only now that the API listens.
    const resolver = IdwalletResolver__factory.connect(deployment.contracts.ensResolver, admin);
    await (await resolver.setUrls([`${running.url}/ccip/{sender}/{data}.json`])).wait();
    return {
      chainNode: chain.kind,
      rpcUrl: chain.rpcUrl,
      apiUrl: running.url,
      config,
      deployment,
      safe,
      demoApp,
      demoAppFile: demoAppFile(config.dataDir),
      chainHistory: {
        restored: localChain.restored,
        ...(localChain.newChainReason ? { newChainReason: localChain.newChainReason } : {}),
        ...(cleared ? { cleared } : {}),
      },
      ens: { domain: ensDomain, registry: ensRegistry },
      demoTokens,
      dust: { multicall3, ethUsdFeed: ethUsdFeed.address },
      custody: {
        addresses,
        ...(opened.hsm
          ? { hsm: { dir: opened.hsm.dir, token: opened.hsm.token.token, configPath: opened.hsm.token.configPath } }
          : {}),
      },
      close: async () => {
        await running.close();
        opened.release();
        await localChain.close();
      },
    };
  } catch (error) {
    await server?.close();
    custody?.release();
    await localChain.close();
    throw error;
  }
}
