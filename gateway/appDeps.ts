import type { NodeHandler } from "./http/nodeHandler";
import type { WalletMessageSigner } from "./custody/walletMessageSigner";
import type { KeyAddresses } from "./custody/serviceKeys";
import type { Logger } from "pino";
import type { AppTokens } from "./auth/appTokens";
import type { OtpService } from "./auth/otp/otpService";
import type { UserTokens } from "./auth/userTokens";
import type { ChainClient } from "./chains/clients";
import type { Limits } from "./limits/limits";
import type { Config } from "./config/schema";
import type { WorkerLeasesRepository } from "./leases/workerLeasesRepository";
import type { KnownProviders } from "./identity/knownProviders";
import type { MaintenanceMonitor } from "./config/maintenanceMonitor";
import type { AppsRepository } from "./auth/appsRepository";
import type { DustRepository } from "./dust/dustRepository";
import type { ProvidersRepository } from "./identity/providersRepository";
import type { RateWindowsRepository } from "./policy/rateWindowsRepository";
import type { SafesRepository } from "./safe/model/safesRepository";
import type { TransactionsRepository } from "./transactions/transactionsRepository";
import type { WebhooksRepository } from "./webhooks/webhooksRepository";
import type { WorkerWaker } from "./workerWaker";
import type { ConsoleStores } from "./console/service/consoleDeps";

/** Everything the app is built from; only the entry file reads the environment. */
export interface AppDeps {
  readonly config: Config;
  readonly clock: () => Date;
  readonly logger: Logger;
  readonly tokens: AppTokens;
  readonly maintenance: MaintenanceMonitor;
  readonly chains: ReadonlyMap<string, ChainClient>;
  /**
   * When every configured chain's RPC answered its chain id (start-up's check, server.ts): each counts reachable from
   * then until a health check says otherwise. Unset: not checked yet.
   */
  readonly chainsVerifiedAt?: Date;
  readonly pingDatabase: () => Promise<void>;
  readonly apps: Pick<AppsRepository, "verifySecret" | "findById" | "list">;
  readonly otp: OtpService;
  readonly userTokens: Pick<UserTokens, "verify">;
  readonly providers: Pick<ProvidersRepository, "find">;
  /** Built-in and registered providers, cached: the ids the resolver answers, and those with ENS names. */
  readonly knownProviders: Pick<KnownProviders, "has" | "hasNames">;
  readonly transactions: TransactionsRepository;
  readonly safes: SafesRepository;
  readonly dust: DustRepository;
  /** The apps' webhook endpoints (issue 21). */
  readonly webhooks: WebhooksRepository;
  /** Per-app request counters, shared by every process on the database (the app rate limit). */
  readonly rateWindows: RateWindowsRepository;
  /** The chain workers' leases, for the metrics (which instance runs which chain). */
  readonly workerLeases?: WorkerLeasesRepository;
  /** Where the token endpoint's per-address and per-client limits are counted (the database: shared, issue 20). */
  readonly limits: Limits;
  /**
   * The custody keys as the API sees them: their addresses, and the wallet signer for EIP-1271 answers (a key in this
   * process, or the primary's asked over IPC); whether the ENS gateway signs answers.
   */
  readonly custody: {
    readonly addresses: KeyAddresses;
    readonly walletSigner: WalletMessageSigner | undefined;
    readonly ccipGateway: boolean;
  };
  /** Chains whose transaction requests are accepted, and the nudge for their worker loop (here or in the primary). */
  readonly txWorkers: { readonly chains: ReadonlySet<string> } & WorkerWaker;
  /** The operator console's stores (issue 38); unset: no console, whatever the settings say. */
  readonly console?: ConsoleStores;
  /** The ENS CCIP-read gateway (routes/ccip/ccipGateway.ts), when this deployment signs answers: served before the API. */
  readonly ccipGateway?: NodeHandler;
}
