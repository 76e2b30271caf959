import { SafeKind } from "../safe/relay/safeKind";
import { UserOperationKind } from "../userop/bundling/userOperationKind";
import type { OperationContext } from "../userop/bundling/operationContext";
import type { WorkKinds } from "../relaying/workKind";

/** A chain worker's kinds of work: a request on a Safe is a Safe transaction, any other a wallet's UserOperation. */
export function createWorkKinds(context: OperationContext): WorkKinds {
  const userOperation = new UserOperationKind(context);
  const safe = new SafeKind(context);
  return { of: (tx) => (tx.accountType === "safe" ? safe : userOperation) };
}
