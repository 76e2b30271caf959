/**
 * The local stack of the UserOperation bench: a fresh chain (Hardhat in process, or anvil in its own process) with
 * every idwallet contract and a call target deployed, and the service started on it in a child process (so the load
 * generator and the chain do not share its event loop), with a test-mode app registered in its database before it
 * starts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { computeAddress, parseEther } from "ethers";
import { type ChainNode, type ChainNodeOptions, startChainNode } from "../../scripts/localStack/chainNode";
import { devKey } from "../../scripts/localStack/devKeys";
import { type Deployment, deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { type CustodyToken, withTokenKeys } from "../../scripts/softhsm/custodyToken";
import { TestTarget__factory } from "../../typechain-types";
import { type ServerChild, startServerChild } from "./serverChild";

/** Hardhat's dev accounts, as the local stack uses them. */
const DEV_ADMIN = 0;
const DEV_WALLET_SIGNER = 1;
const DEV_SPONSOR_SIGNER = 2;
const DEV_RELAYER = 4;

/** Secret of the app and user tokens of the bench's services (the bench mints user tokens with it too). */
export const BENCH_TOKEN_SECRET = "userops-bench-secret-not-for-production-use";
export const BENCH_TOKEN_ISSUER = "idwallet-userops-bench";

/**
 * The code the bench's wallets run: "2.1", as `npm run deploy` and the local stack set a deployment up now (the creator
 * holds the owner account's admin role, so new wallets start on 2.1, authorized by one custody root per bundle), or
 * "2.0.0", a deployment left as before (the service configured without the 2.1 contracts: wallets created by the
 * frozen factory, a sponsorship and a wallet signature per operation, each made for the simulation too).
 */
export type WalletCode = "2.1" | "2.0.0";

/** Parses a wallet code setting. */
export function parseWalletCode(name: string): WalletCode {
  if (name !== "2.1" && name !== "2.0.0") throw new Error(`wallet code ${name}: 2.1 or 2.0.0`);
  return name;
}

/** The chain of a bench run and what is deployed on it. */
export interface UserOpsChain {
  readonly node: ChainNode;
  /** The code the service's wallets run. */
  readonly walletCode: WalletCode;
  readonly deployment: Deployment;
  /** TestTarget: the contract every operation calls. */
  readonly target: string;
  /** The relayer's address: it sends every handleOps bundle. */
  readonly relayer: string;
  /** The private keys the deployment trusts for each transaction key (dev keys, for a token to import). */
  readonly keys: { readonly walletSigner: string; readonly sponsorSigner: string; readonly relayer: string };
  close(): Promise<void>;
}

/** The private keys of the bench's deployment, by role (Hardhat's dev keys, the same on every chain). */
export const BENCH_KEYS = {
  walletSigner: devKey(DEV_WALLET_SIGNER),
  sponsorSigner: devKey(DEV_SPONSOR_SIGNER),
  relayer: devKey(DEV_RELAYER),
} as const;

/**
 * Starts a fresh chain on a free loopback port and deploys idwallet (paymaster deposits 1,000 ETH) and TestTarget; for
 * wallet code 2.1 (the default) with the creator as the owner account's admin, as `npm run deploy` does.
 */
export async function startUserOpsChain(
  options: ChainNodeOptions & { readonly walletCode?: WalletCode } = {},
): Promise<UserOpsChain> {
  const { walletCode: code = "2.1", ...nodeOptions } = options;
  const node = await startChainNode("127.0.0.1", 0, nodeOptions);
  try {
    const accounts = await node.provider.listAccounts();
    const admin = accounts[DEV_ADMIN]!;
    const deployment = await deployIdwallet(admin, {
      admin: admin.address,
      walletSigners: [accounts[DEV_WALLET_SIGNER]!.address],
      sponsorSigners: [accounts[DEV_SPONSOR_SIGNER]!.address],
      paymasterDeposit: parseEther("1000"),
      creatorAsAdmin: code === "2.1",
    });
    const target = await new TestTarget__factory(admin).deploy();
    await target.waitForDeployment();
    return {
      node,
      walletCode: code,
      deployment,
      target: await target.getAddress(),
      relayer: computeAddress(BENCH_KEYS.relayer),
      keys: BENCH_KEYS,
      close: () => node.close(),
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

/** Where a service's keys are: raw in its environment, or in a SoftHSM2 token signed through PKCS#11. */
export type KeysMode = "process" | "hsm";

/** A running service of the bench, with the bearer token of its test-mode app. */
export interface UserOpsService {
  readonly url: string;
  /** The service's process (its cluster workers are its children). */
  readonly pid: number;
  readonly appToken: string;
  readonly keys: KeysMode;
  /** Its SQLite database file (none when it shares a PostgreSQL database): the bench reads the audit log there. */
  readonly databasePath?: string;
  stop(): Promise<void>;
}

/** How to start a bench service besides its settings. */
export interface ServiceOptions {
  /** Go to the child's node, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  /** The chain's RPC URL as the service sees it (a tracing proxy), instead of the chain's own. */
  readonly rpcUrl?: string;
  /** Sign with the keys in this SoftHSM2 token (PKCS#11) instead of raw keys in the service's environment. */
  readonly token?: CustodyToken;
  /** A database prepared with `prepareBenchDatabase` (several instances share it) instead of a fresh SQLite file. */
  readonly database?: BenchDatabase;
}

/** A database with the bench's app registered, and the setting that names it. */
export interface BenchDatabase {
  readonly settings: Readonly<Record<string, string>>;
  readonly credentials: { clientId: string; clientSecret: string };
}

/** Registers the bench's app in the (migrated, empty) PostgreSQL database at `url`, for instances to share. */
export async function prepareBenchDatabase(url: string): Promise<BenchDatabase> {
  return { settings: { DATABASE_URL: url }, credentials: await registerApp(url) };
}

/**
 * Registers a test-mode app in a fresh database, starts the service on `chain` in a child process with `env` added
 * (e.g. TX_MAX_OPS_PER_BUNDLE) and returns its URL and an app token obtained through POST /v1/auth.
 */
export async function startUserOpsService(
  chain: UserOpsChain,
  env: Readonly<Record<string, string>>,
  options: ServiceOptions = {},
): Promise<UserOpsService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-userops-"));
  const databasePath = path.join(dataDir, "idwallet.sqlite");
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  let server: ServerChild | undefined;
  try {
    const credentials = options.database?.credentials ?? (await registerApp(databasePath));
    const c = chain.deployment.contracts;
    const settings: Record<string, string> = {
      ...(options.database?.settings ?? { DATABASE_PATH: databasePath }),
      AUTH_TOKEN_SECRET: BENCH_TOKEN_SECRET,
      AUTH_ISSUER: BENCH_TOKEN_ISSUER,
      RPC_URL_LOCALHOST: options.rpcUrl ?? chain.node.rpcUrl,
      CONTRACT_ENTRY_POINT: c.entryPoint,
      CONTRACT_OWNER_ACCOUNT: c.ownerAccount,
      CONTRACT_KERNEL_FACTORY: c.kernelFactory,
      CONTRACT_BASE_FACTORY: c.baseFactory,
      CONTRACT_SPONSOR_PAYMASTER: c.sponsorPaymaster,
      CONTRACT_ENS_RESOLVER: c.ensResolver,
      // Code 2.1 as the local stack configures it: new wallets through the creator, chosen without a log query.
      ...(chain.walletCode === "2.1"
        ? {
            CONTRACT_CUSTODY_PAYMASTER: c.custodyPaymaster,
            CONTRACT_KERNEL_CREATOR: c.kernelCreator,
            CONTRACT_WALLET_IMPLEMENTATIONS: c.kernelCurrentImplementation,
          }
        : {}),
      WALLET_SIGNER_KEY: chain.keys.walletSigner,
      SPONSOR_SIGNER_KEY: chain.keys.sponsorSigner,
      RELAYER_SIGNER_KEY: chain.keys.relayer,
      ...env,
    };
    server = await startServerChild(
      options.token ? withTokenKeys(settings, options.token) : settings,
      options.nodeArgs,
    );
    const running = server;
    const appToken = await fetchAppToken(running.url, credentials);
    return {
      url: running.url,
      pid: running.pid,
      appToken,
      keys: options.token ? "hsm" : "process",
      ...(options.database ? {} : { databasePath }),
      stop: async () => {
        await running.stop();
        removeData();
      },
    };
  } catch (error) {
    await server?.stop();
    removeData();
    throw error;
  }
}

async function registerApp(databasePath: string): Promise<{ clientId: string; clientSecret: string }> {
  const database = await openDatabase(databasePath);
  try {
    const { apps } = createRepositories(database.db, () => new Date());
    const { app, clientSecret } = await apps.create({ name: "userops-bench" });
    // The bench measures the service, not its guardrails: a rate and budgets no run comes near.
    const unbounded = 10n ** 24n;
    await apps.setPolicy(app.id, {
      rate: { requests: 1_000_000, perSeconds: 1 },
      budgetGas: unbounded,
      userDailyCapGas: unbounded,
    });
    return { clientId: app.clientId, clientSecret };
  } finally {
    await database.close();
  }
}

/** An app access token by OAuth 2.0 client credentials. */
async function fetchAppToken(url: string, credentials: { clientId: string; clientSecret: string }): Promise<string> {
  const response = await fetch(`${url}/v1/auth`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: credentials.clientId, client_secret: credentials.clientSecret }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) {
    throw new Error(`POST /v1/auth answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
