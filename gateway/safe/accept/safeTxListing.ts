import type { AppPrincipal } from "../../auth/appTokens";
import { safeChain } from "../../accept/chainChecks";
import { type ListedPage, type PageRequest, readPage } from "../../transactions/listPages";
import type { SafeTxRecord, TxStatus } from "../../transactions/txRecord";
import { type SafesDeps, ownSafe } from "./safes";

/** GET /v1/{chain}/account/{address}/txs's query as the route parsed it: the status filter optional. */
export interface SafeTxListRequest extends PageRequest {
  readonly status?: TxStatus | undefined;
}

/**
 * A page of the requests of a Safe this app created, newest first, under the rule of its other routes: 403
 * SAFE_NOT_OWNED for another app's Safe, 404 for one no app created here. The cursor must be one this listing (this
 * app, this Safe, this status filter) gave out (400 INVALID_CURSOR).
 */
export async function listSafeTransactions(
  chain: string,
  address: string,
  request: SafeTxListRequest,
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<ListedPage<SafeTxRecord>> {
  safeChain(chain, deps.capabilities);
  const safe = await ownSafe(chain, address, principal, deps);
  const { status } = request;
  const scope = ["safe requests", principal.appId, chain, safe.address, status ?? null];
  return readPage(deps.cursors, scope, request, (window) =>
    deps.safes.listRequests({ appId: principal.appId, chain, address: safe.address, status, ...window }),
  );
}
