import { getAddress } from "ethers";
import type { App } from "../../auth/app";
import { safeInterface } from "../encoding/safeArtifacts";
import { configurationFunctionOf, describeRefusedSafeCalls, refusedSafeCalls } from "../model/safeCallRules";
import type { SafeCall } from "../encoding/safeTransaction";
import type { SafeTxRecord, TxError } from "../../transactions/txRecord";

/** The operator's Safe owner keys this worker signs with: the current one and, while it rotates, the one replaced. */
export interface OperatorKeys {
  readonly current: string | undefined;
  readonly previous: string | undefined;
}

/**
 * Why a stored Safe request may not be signed, if it may not: its custom call could change the Safe's configuration
 * and its app does not hold the grant now. The API refuses such a request before storing it; this catches those
 * stored before the rule existed, and those whose app lost the grant since (design invariant 9). Only `custom` calls
 * are looked at: payouts are built by the service as token transfers, and one stored before the rule whose token is
 * the Safe itself only reaches its fallback handler, which has no transfer function, so it reverts and changes
 * nothing.
 * The operator's own rotation (admin CLI `rotate-safe-operator`) is let through: it moves only the operator's owner
 * slot, from the key being replaced to the current one.
 */
export async function safeCallRefusal(
  tx: SafeTxRecord,
  call: SafeCall,
  findApp: (appId: string) => Promise<App | undefined>,
  operators: OperatorKeys,
): Promise<TxError | undefined> {
  if (tx.safeAction !== "custom") return undefined;
  const refused = refusedSafeCalls([call], tx.sender);
  if (refused.length === 0 || isOperatorRotation(call, tx.sender, operators)) return undefined;
  if ((await findApp(tx.appId))?.safeConfigGranted === true) return undefined;
  return { code: "SAFE_CALL_NOT_ALLOWED", message: describeRefusedSafeCalls(refused) };
}

/** Whether `call` is the Safe's swapOwner(prev, previous operator key, current operator key), as the rotation queues it. */
function isOperatorRotation(call: SafeCall, safe: string, operators: OperatorKeys): boolean {
  const { current, previous } = operators;
  if (current === undefined || previous === undefined) return false;
  if (call.operation !== 0 || call.value !== 0n || getAddress(call.to) !== getAddress(safe)) return false;
  if (configurationFunctionOf(call.data) !== "swapOwner") return false;
  let owners: string[];
  try {
    owners = [...safeInterface.decodeFunctionData("swapOwner", call.data)] as string[];
  } catch {
    return false; // malformed arguments: no rotation (and Safe would revert on them)
  }
  const [, oldOwner, newOwner] = owners;
  return getAddress(oldOwner!) === getAddress(previous) && getAddress(newOwner!) === getAddress(current);
}
