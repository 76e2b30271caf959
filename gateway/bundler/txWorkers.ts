import type { App } from "../auth/app";
import type { KeyAddresses, ServiceKeys } from "../custody/serviceKeys";
import type { Logger } from "pino";
import type { ChainClient } from "../chains/clients";
import { rpcErrorMessage } from "../chains/revertData";
import { createL1DataFee } from "../chains/l1DataFee";
import { chainByName } from "../chains/registry";
import type { Config } from "../config/schema";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import { BuiltinBundler } from "./builtinBundler";
import { ExternalBundler } from "./externalBundler";
import type { OperationContext } from "../userop/bundling/operationContext";
import { WalletCustody } from "../userop/walletCustody";
import { WalletSchemes } from "../userop/walletSchemes";
import { factoryImplementation } from "../identity/walletAddress";
import { type Fence, chainWorkerLease } from "../leases/lease";
import { LeasedStepper, type LeaseSettings } from "./leasedStepper";
import type { Stepper } from "./stepper";
import { thisProcessHolder } from "../leases/leaseHolder";
import type { WorkerLeasesRepository } from "../leases/workerLeasesRepository";

/** The running transaction workers: one loop per chain, each resuming its chain's queue where it stands. */
export interface TxWorkers {
  /** Chains whose requests the service accepts (signing keys, contracts and a way to submit configured). */
  readonly chains: ReadonlySet<string>;
  /** Starts each loop now rather than at its next poll (new work was accepted in this process). */
  wake(chain: string): void;
  /** Stops every loop after its current step. */
  stop(): Promise<void>;
}

/** Why a chain cannot take transactions, or undefined if it can; `keys`: the custody keys the deployment has. */
export function transactionsUnavailableReason(config: Config, chain: string, keys: KeyAddresses): string | undefined {
  const c = config.contracts;
  if (!keys.walletSigner) return "WALLET_SIGNER (or WALLET_SIGNER_KEY) is not set";
  if (!keys.sponsorSigner) return "SPONSOR_SIGNER (or SPONSOR_SIGNER_KEY) is not set";
  if (!c.entryPoint || !c.sponsorPaymaster) return "CONTRACT_ENTRY_POINT and CONTRACT_SPONSOR_PAYMASTER must be set";
  const connection = config.chains[chain];
  if (!connection) return `${chain} has no RPC_URL`;
  if (!connection.bundlerUrl && !keys.relayer) return `${chain} has neither a BUNDLER_URL nor a RELAYER_SIGNER`;
  return undefined;
}

/** The lease settings of this process's workers: its holder identity and the configured lease time. */
export function workerLeases(
  config: Config,
  repositories: { workerLeases: WorkerLeasesRepository },
): Omit<LeaseSettings, "clock"> {
  return {
    leases: repositories.workerLeases,
    holder: thisProcessHolder(config.instanceId),
    ttlMs: config.transactions.leaseSeconds * 1000,
    retryMs: config.transactions.pollIntervalMs,
  };
}

/** Starts a worker loop for every configured chain that can take transactions. */
export function startTxWorkers(
  config: Config,
  deps: {
    chains: ReadonlyMap<string, ChainClient>;
    repository: TransactionsRepository;
    /** The apps as stored: a Safe request is signed only while its app may still send it. */
    findApp: (appId: string) => Promise<App | undefined>;
    clock: () => Date;
    logger: Logger;
    /**
     * The custody keys: their addresses say which chains take transactions; their signers, loaded in this process
     * when it runs the loops.
     */
    keys: Pick<ServiceKeys, "addresses"> & Partial<Pick<ServiceKeys, "signers">>;
    /** Whether this process runs the loops (false: only report which chains take transactions). */
    run: boolean;
    /** The leases a loop runs a chain's worker under: one instance at a time, the others standing by. */
    leases: Omit<LeaseSettings, "clock">;
  },
): TxWorkers {
  const loops = new Map<string, Loop>();
  const accepted = new Set<string>();
  const t = config.transactions;
  for (const chain of deps.chains.values()) {
    if (transactionsUnavailableReason(config, chain.name, deps.keys.addresses) !== undefined) continue;
    accepted.add(chain.name);
    if (!deps.run) continue;
    const signers = deps.keys.signers;
    if (!signers?.walletSigner || !signers.sponsorSigner) throw new Error("the transaction workers need their keys");
    const { walletSigner, sponsorSigner } = signers;
    const { ownerAccount } = config.contracts;
    // The configuration requires it wherever a wallet signer is set.
    if (!ownerAccount) throw new Error("the transaction workers need CONTRACT_OWNER_ACCOUNT");
    const factories = { kernel: config.contracts.kernelFactory, base: config.contracts.baseFactory };
    // One per chain, kept across lease changes: what it learnt of the operator's wallet code stays true.
    const custody = new WalletCustody({
      provider: chain.provider,
      ownerAccount,
      factories,
      chosenImplementations: config.contracts.walletImplementations,
      clock: deps.clock,
    });
    const { custodyPaymaster, kernelCreator } = config.contracts;
    const schemes = new WalletSchemes({
      provider: chain.provider,
      ...(custodyPaymaster ? { custodyPaymaster } : {}),
      ...(kernelCreator ? { creator: kernelCreator } : {}),
      firstImplementations: Object.values(factories).map(factoryImplementation),
      clock: deps.clock,
    });
    // One oracle reader per chain that charges an L1 data fee (shared by every build on it: read once a block).
    const l1DataFee = chainByName(chain.name)?.l1DataFee ? createL1DataFee(chain.provider) : undefined;
    // A fresh context and stepper each time the lease is taken, its writes fenced by the lease's token.
    const context = (repository: TransactionsRepository): OperationContext => ({
      chain,
      repository,
      entryPoint: config.contracts.entryPoint!,
      confirmations: t.confirmations,
      maxOpsPerBundle: t.maxOpsPerBundle,
      maxAttempts: t.maxAttempts,
      retryDelayMs: t.retryDelayMs,
      findApp: deps.findApp,
      clock: deps.clock,
      logger,
      custody,
      schemes,
      ...(signers.safeOperator ? { safeOperator: signers.safeOperator } : {}),
      ...(signers.previousSafeOperator ? { previousSafeOperator: signers.previousSafeOperator } : {}),
      builder: {
        provider: chain.provider,
        chain: chain.name,
        chainId: BigInt(chain.chainId),
        entryPoint: config.contracts.entryPoint!,
        factories,
        paymaster: config.contracts.sponsorPaymaster!,
        ...(custodyPaymaster ? { custodyPaymaster } : {}),
        ...(kernelCreator ? { walletCreator: kernelCreator } : {}),
        walletSigner,
        sponsorSigner,
        sponsorshipTtlSeconds: t.sponsorshipTtlSeconds,
        maxCallGas: BigInt(t.maxCallGas),
        maxPreVerificationGas: BigInt(t.maxPreVerificationGas),
        ...(l1DataFee ? { l1DataFee } : {}),
        clock: deps.clock,
      },
    });
    const logger = deps.logger.child({ component: "bundler", chain: chain.name });
    const { bundlerUrl, bundlerMaxPending } = config.chains[chain.name] ?? {};
    const start = (fence: Fence): Stepper => {
      const fenced = context(deps.repository.fenced(fence));
      return bundlerUrl
        ? new ExternalBundler(fenced, {
            url: bundlerUrl,
            timeoutMs: config.rpcTimeoutMs,
            resendAfterMs: t.stuckAfterSeconds * 1000,
            ...(bundlerMaxPending ? { maxPending: bundlerMaxPending } : {}),
          })
        : new BuiltinBundler(fenced, {
            relayer: signers.relayer!,
            stuckAfterMs: t.stuckAfterSeconds * 1000,
            feeBumpPercent: BigInt(t.feeBumpPercent),
            maxInFlight: t.maxBundlesInFlight,
            trackIntervalMs: t.pollIntervalMs,
          });
    };
    const leased = new LeasedStepper(
      chainWorkerLease(chain.name),
      { ...deps.leases, clock: deps.clock },
      start,
      logger,
    );
    loops.set(chain.name, new Loop(leased, t.pollIntervalMs, logger));
  }
  return {
    chains: accepted,
    wake: (chain) => loops.get(chain)?.wake(),
    stop: async () => void (await Promise.all([...loops.values()].map((loop) => loop.stop()))),
  };
}

/** Longest pause after a failed step (RPC down): doubles from the poll interval up to this. */
const MAX_ERROR_BACKOFF_MS = 5_000;

/**
 * Runs a stepper until stopped: at once after a productive step or a wake, after the poll interval otherwise, and
 * backing off after failures.
 */
export class Loop {
  private stopped = false;
  /** A wake came during the current step, which may have read the queue before that work was stored. */
  private woken = false;
  /** Pausing after failed steps: only stop() ends the pause early. */
  private backingOff = false;
  private wakeUp: (() => void) | undefined;
  private readonly done: Promise<void>;

  constructor(
    private readonly stepper: Stepper,
    private readonly pollIntervalMs: number,
    private readonly logger: Logger,
  ) {
    this.done = this.run();
  }

  wake(): void {
    this.woken = true;
    // Not during a back-off after failed steps: a flood of accepted requests (many processes' wakes) must not turn it
    // into a retry at the request rate while the node is down. The request waits for the back-off to end.
    if (!this.backingOff) this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.done;
    await this.stepper.close?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let progressed = false;
      this.woken = false;
      try {
        progressed = await this.stepper.tick();
        failures = 0;
      } catch (error) {
        failures++;
        // The message only: RPC errors carry whole payloads (signed operations, contract code).
        this.logger.error({ error: rpcErrorMessage(error), failures }, "transaction worker step failed; retrying");
      }
      // Not after a failed step, whose back-off stands (see wake()).
      if (progressed || this.stopped || (this.woken && failures === 0)) continue;
      const pause =
        failures === 0 ? this.pollIntervalMs : Math.min(this.pollIntervalMs * 2 ** failures, MAX_ERROR_BACKOFF_MS);
      this.backingOff = failures > 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
      this.backingOff = false;
    }
  }
}
