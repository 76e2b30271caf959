import type { WorkerContext } from "../../relaying/workerContext";
import type { OpBuilderDeps } from "../userOpBuilder";
import type { WalletCustody } from "../walletCustody";

/** A chain worker's context with what building UserOperations needs: every bundler mode runs that kind. */
export interface OperationContext extends WorkerContext {
  readonly builder: OpBuilderDeps;
  /** Which wallets the operator's custodian holds: the only ones operations are built for. */
  readonly custody: WalletCustody;
}
