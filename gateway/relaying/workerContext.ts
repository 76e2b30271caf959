import type { Logger } from "pino";
import type { App } from "../auth/app";
import type { ChainClient } from "../chains/clients";
import type { KeySigner } from "../custody/keySigner";
import type { TransactionsRepository } from "../transactions/transactionsRepository";

/**
 * What a chain's worker (either bundler mode) works with, whatever kind of work it runs; the UserOperation kind
 * adds what building operations needs (userop/bundling/operationContext.ts).
 */
export interface WorkerContext {
  readonly chain: ChainClient;
  readonly repository: TransactionsRepository;
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
  /** The operator's owner key of the Safes created here (SAFE_OPERATOR_SIGNER), if set. */
  readonly safeOperator?: KeySigner;
  /** While the operator rotates: the key being replaced, which signs for the Safes it still owns. */
  readonly previousSafeOperator?: KeySigner;
}
