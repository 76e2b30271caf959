import type { Logger } from "pino";
import type { App } from "../auth/app";
import type { ChainClient } from "../chains/clients";
import type { KeySigner } from "../custody/keySigner";
import type { TransactionsRepository } from "../storage/transactionsRepository";
import type { OpBuilderDeps } from "../userop/userOpBuilder";
import type { WalletCustody } from "../userop/walletCustody";

/** What a chain's worker (either bundler mode) works with. */
export interface WorkerContext {
  readonly chain: ChainClient;
  readonly repository: TransactionsRepository;
  readonly builder: OpBuilderDeps;
  /** Which wallets the operator's custodian holds: the only ones operations are built for. */
  readonly custody: WalletCustody;
  readonly entryPoint: string;
  /** Blocks a bundle's block needs on top (itself included) before its requests are final. */
  readonly confirmations: number;
  readonly maxOpsPerBundle: number;
  /** Builds of one request before it fails for good. */
  readonly maxAttempts: number;
  /** First retry delay; doubled on each further attempt. */
  readonly retryDelayMs: number;
  readonly clock: () => Date;
  readonly logger: Logger;
  /** An app as stored now: its grants decide whether a stored Safe request may still be signed. */
  readonly findApp: (appId: string) => Promise<App | undefined>;
  /** The operator's owner key of the Safes created here (SAFE_OPERATOR_KEY), if set. */
  readonly safeOperator?: KeySigner;
  /** While the operator rotates: the key being replaced, which signs for the Safes it still owns. */
  readonly previousSafeOperator?: KeySigner;
}
