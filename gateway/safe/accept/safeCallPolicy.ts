import { ApiError } from "../../errors/apiError";
import { type RefusedSafeCall, describeRefusedSafeCalls, refusedSafeCalls } from "../model/safeCallRules";
import type { SafeCall } from "../encoding/safeTransaction";

/**
 * 403 SAFE_CALL_NOT_ALLOWED: the request could change the Safe's owners, threshold, modules, guards or fallback
 * handler, which only the customer's key does unless the operator granted the app (`calls` names each refused call).
 */
export class SafeCallNotAllowedError extends ApiError {
  constructor(readonly calls: readonly RefusedSafeCall[]) {
    super(403, "SAFE_CALL_NOT_ALLOWED", "Safe call not allowed", describeRefusedSafeCalls(calls), { calls });
  }
}

/**
 * Refuses, with SafeCallNotAllowedError listing every offence, the calls a Safe transaction would make as `safe`
 * that could change its configuration, unless the app holds the operator's grant (admin CLI
 * `apps grant-safe-config`). Design invariant 9: a stolen app credential or operator key must not be able to take
 * the customer's key out of a 1-of-n Safe for good.
 */
export function checkSafeCalls(calls: readonly SafeCall[], safe: string, granted: boolean): void {
  if (granted) return;
  const refused = refusedSafeCalls(calls, safe);
  if (refused.length > 0) throw new SafeCallNotAllowedError(refused);
}
