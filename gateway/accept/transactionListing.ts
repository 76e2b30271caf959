import type { AppPrincipal } from "../auth/appTokens";
import { requestUserId } from "../auth/requestChecks";
import { formatUserId } from "../identity/userId";
import type { AccountType } from "../identity/walletAddress";
import { type ListedPage, type PageRequest, readPage } from "../transactions/listPages";
import type { TxStatus, WalletTxRecord } from "../transactions/txRecord";
import type { TransactionsDeps } from "./transactions";
import { knownChain } from "./chainChecks";

/** GET /v1/kernel/tx's query as the route parsed it: every filter optional. */
export interface TxListRequest extends PageRequest {
  readonly userId?: string | undefined;
  readonly chain?: string | undefined;
  readonly status?: TxStatus | undefined;
}

/**
 * A page of this app's requests through wallets of `type`, newest first: only the app's own (the query is scoped to
 * it, whatever the filters or the cursor say). A user id is matched in its canonical form, so any spelling of it
 * finds the same requests (400 INVALID_USER_ID if it has none); a chain must be one of the registry (400
 * UNKNOWN_CHAIN), served here or not; the cursor must be one this listing gave out (400 INVALID_CURSOR).
 */
export async function listTransactions(
  type: AccountType,
  request: TxListRequest,
  principal: AppPrincipal,
  deps: Pick<TransactionsDeps, "repository" | "capabilities" | "cursors">,
): Promise<ListedPage<WalletTxRecord>> {
  const userId = request.userId === undefined ? undefined : formatUserId(requestUserId(request.userId));
  if (request.chain !== undefined) knownChain(request.chain, deps.capabilities);
  const { chain, status } = request;
  const scope = ["wallet requests", type, principal.appId, userId ?? null, chain ?? null, status ?? null];
  return readPage(deps.cursors, scope, request, (window) =>
    deps.repository.listWalletRequests({ appId: principal.appId, accountType: type, userId, chain, status, ...window }),
  );
}
