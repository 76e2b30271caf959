import type { WorkerContext } from "../../relaying/workerContext";
import type { OpBuilderDeps } from "../userOpBuilder";
import type { WalletCustody } from "../walletCustody";
import type { WalletSchemes } from "../walletSchemes";

/** A chain worker's context with what building UserOperations needs: every bundler mode runs that kind. */
export interface OperationContext extends WorkerContext {
  readonly builder: OpBuilderDeps;
  /** Which wallets the operator's custodian holds: the only ones operations are built for. */
  readonly custody: WalletCustody;
  /** How each custodial wallet's operation is authorized (its code: 2.0.0 or 2.1). */
  readonly schemes: WalletSchemes;
}
