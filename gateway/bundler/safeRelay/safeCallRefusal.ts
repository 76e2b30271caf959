import type { App } from "../../auth/app";
import { describeRefusedSafeCalls, refusedSafeCalls } from "../../safe/safeCallRules";
import type { SafeCall } from "../../safe/safeTransaction";
import type { SafeTxRecord, TxError } from "../../transactions/txRecord";

/**
 * Why a stored Safe request may not be signed, if it may not: its custom call could change the Safe's configuration
 * and its app does not hold the grant now. The API refuses such a request before storing it; this catches those
 * stored before the rule existed, and those whose app lost the grant since (design invariant 9). Payouts are built
 * by the service, from transfers whose token and recipient may not be the Safe, so only `custom` calls are looked at.
 */
export async function safeCallRefusal(
  tx: SafeTxRecord,
  call: SafeCall,
  findApp: (appId: string) => Promise<App | undefined>,
): Promise<TxError | undefined> {
  if (tx.safeAction !== "custom") return undefined;
  const refused = refusedSafeCalls([call], tx.sender);
  if (refused.length === 0) return undefined;
  if ((await findApp(tx.appId))?.safeConfigGranted === true) return undefined;
  return { code: "SAFE_CALL_NOT_ALLOWED", message: describeRefusedSafeCalls(refused) };
}
