import path from "node:path";
import { parseEther } from "ethers";
import type { Logger } from "pino";
import { loadConfig } from "../../gateway/config/load";
import type { Config } from "../../gateway/config/schema";
import { type RunningServer, startServer } from "../../gateway/server";
import { type Deployment, deployIdwallet } from "../deployment/deployIdwallet";
import { startChainNode } from "./chainNode";
import { prepareDemoApp } from "./demoApp";
import { loadDevSecrets } from "./devSecrets";

/** Where the local stack listens and keeps its data. */
export interface LocalStackOptions {
  readonly host: string;
  readonly rpcPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
}

/** A running local stack: chain, contracts, demo app, API. */
export interface LocalStack {
  readonly rpcUrl: string;
  readonly apiUrl: string;
  readonly config: Config;
  readonly deployment: Deployment;
  readonly demoApp: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/** Hardhat's first three dev accounts: admin/deployer, wallet signer, sponsor signer. */
const DEV_ADMIN = 0;
const DEV_WALLET_SIGNER = 1;
const DEV_SPONSOR_SIGNER = 2;

/**
 * Starts an in-process chain, deploys every contract deterministically (same addresses on every start),
 * registers the demo app and serves the API. Everything started is stopped if a later step fails.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const chain = await startChainNode(options.host, options.rpcPort);
  let server: RunningServer | undefined;
  try {
    const accounts = await chain.provider.listAccounts();
    const deployment = await deployIdwallet(accounts[DEV_ADMIN]!, {
      admin: accounts[DEV_ADMIN]!.address,
      walletSigners: [accounts[DEV_WALLET_SIGNER]!.address],
      sponsorSigners: [accounts[DEV_SPONSOR_SIGNER]!.address],
      paymasterDeposit: parseEther("100"),
    });
    const secrets = loadDevSecrets(options.dataDir);
    const config = loadConfig(options.env ?? {}, {
      host: options.host,
      port: options.apiPort,
      dataDir: options.dataDir,
      databasePath: path.join(options.dataDir, "idwallet.sqlite"),
      auth: { tokenSecret: secrets.tokenSecret },
      contracts: deployment.contracts,
      chains: { localhost: { rpcUrl: chain.rpcUrl } },
    });
    const demoApp = await prepareDemoApp(config.databasePath!);
    server = await startServer(config, { logger: options.logger });
    const running = server;
    return {
      rpcUrl: chain.rpcUrl,
      apiUrl: running.url,
      config,
      deployment,
      demoApp,
      close: async () => {
        await running.close();
        await chain.close();
      },
    };
  } catch (error) {
    await server?.close();
    await chain.close();
    throw error;
  }
}
