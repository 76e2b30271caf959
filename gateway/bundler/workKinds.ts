import { SafeKind } from "./safeRelay/safeKind";
import { UserOperationKind } from "./userOperation/userOperationKind";
import type { WorkerContext } from "./workerContext";
import type { WorkKinds } from "./workKind";

/** A chain worker's kinds of work: a request on a Safe is a Safe transaction, any other a wallet's UserOperation. */
export function createWorkKinds(context: WorkerContext): WorkKinds {
  const userOperation = new UserOperationKind(context);
  const safe = new SafeKind(context);
  return { of: (tx) => (tx.accountType === "safe" ? safe : userOperation) };
}
