import type { AppPrincipal } from "../auth/appTokens";
import { type UserProofDeps, checkUserProof } from "../auth/userProof";
import type { ChainCapabilitiesTable } from "./chainCapabilities";
import { InvalidRequestError, NotFoundError } from "../errors/apiError";
import { formatUserId } from "../identity/userId";
import { type AccountType, deriveWalletAddress } from "../identity/walletAddress";
import type { App } from "../auth/app";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import type { ListCursors } from "../transactions/listCursor";
import { type TxCall, type WalletTxRecord, isWalletRecord } from "../transactions/txRecord";
import { type RequestBounds, checkRequestBounds } from "../userop/requestBounds";
import { checkCallRules } from "../policy/callPolicy";
import type { RequestDeadline } from "./requestDeadline";
import { transactionChain } from "./chainChecks";
import type { L1DataReservation } from "../userop/l1DataReservation";
import { type AcceptanceDeps, commitRequest, findRequest, requestHash } from "./requestAcceptance";
import { actingApp, requestUserId } from "../auth/requestChecks";

/** A transaction request as the routes parsed it (spec §2.5 / §2.7). */
export interface TxRequest {
  readonly userId: string;
  readonly chain: string;
  readonly to: readonly string[];
  readonly value: readonly bigint[];
  readonly data: readonly string[];
  readonly delegatecall: 0 | 1;
  readonly auth: string;
}

/** What accepting and reporting transactions needs. */
export interface TransactionsDeps extends AcceptanceDeps {
  readonly repository: TransactionsRepository;
  /** What each chain can do here: requests are accepted where it takes UserOperations. */
  readonly capabilities: ChainCapabilitiesTable;
  readonly factories: Readonly<Record<AccountType, string>>;
  /** The operator's OwnerAccount (holds every wallet): no request may call it. */
  readonly ownerAccount: string | undefined;
  readonly maxCalls: number;
  /** How large a request's calls and its operation may be. */
  readonly bounds: RequestBounds;
  /** The L1 data fee, in gas, a request's operation may cost on its chain (OP-stack chains): reserved with its gas. */
  readonly l1DataGas: L1DataReservation;
  readonly findApp: (appId: string) => Promise<App | undefined>;
  readonly proof: UserProofDeps;
  /** The cursors of GET /v1/kernel/tx's pages. */
  readonly cursors: ListCursors;
}

/**
 * Accepts a transaction request: validates it, counts it against the app's rate, checks the user proof (invariant 3),
 * the call rules (no call to the wallet itself or its owner account, delegatecall only when granted) and the app's
 * policy and budget (invariant 7), and commits it as `queued` before answering
 * (invariant 4), if `deadline` has not passed. With an Idempotency-Key the app's earlier request with that key is
 * returned instead (`created` false); the same key with another request is 409.
 */
export async function submitTransaction(
  type: AccountType,
  request: TxRequest,
  idempotencyKey: string | undefined,
  principal: AppPrincipal,
  deps: TransactionsDeps,
  deadline: RequestDeadline,
): Promise<{ record: WalletTxRecord; created: boolean }> {
  const calls = requestCalls(request, deps.maxCalls);
  const { operationBytes } = checkRequestBounds(type, calls, request.delegatecall === 1, deps.bounds);
  const userId = requestUserId(request.userId);
  const chain = transactionChain(request.chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  // Every spending request counts against the app's rate, refused or not: a runaway app is slowed before any work.
  await deps.policy.countRequest(app);
  const scope = { chainType: chain.type };
  await checkUserProof(userId, request.auth, { appId: app.id, testMode: app.testMode }, scope, deps.proof);
  // The call rules come after the proof: an app without a valid proof gets the same proof error whatever its calls,
  // so a refusal here tells only a caller already entitled to act for this user id. Both run before anything is
  // stored, so a refused request leaves no row and its Idempotency-Key stays free.
  const sender = deriveWalletAddress(deps.factories[type], type, userId);
  const delegatecall = request.delegatecall === 1;
  checkCallRules(calls, {
    wallet: sender,
    ownerAccount: deps.ownerAccount,
    delegatecall,
    delegatecallGranted: app.delegatecallGranted,
  });

  const canonical = formatUserId(userId);
  // Read after the checks that need no node: a refused request costs no oracle read (and the read is cached a block).
  const l1DataGas = await deps.l1DataGas(chain, operationBytes);
  const spend = {
    chain: request.chain,
    calls,
    account: "wallet" as const,
    userId: canonical,
    checkCalls: true,
    delegatecall,
    l1DataGas,
  };
  const admission = deps.policy.admit(app, spend);
  const hash = requestHash([
    type,
    canonical,
    request.chain,
    delegatecall,
    calls.map((c) => [c.to.toLowerCase(), c.value.toString(), c.data.toLowerCase()]),
  ]);
  // The one write (request, idempotency key and reserved gas together) that makes it real.
  const store = () =>
    deps.repository.create(
      {
        appId: app.id,
        accountType: type,
        userId: canonical,
        chain: request.chain,
        sender,
        calls,
        delegatecall,
        idempotencyKey,
        requestHash: hash,
        reservedGas: admission.reservedGas,
      },
      admission.limits,
    );
  return commitRequest({ spend, admission, requestHash: hash, store }, isWalletRecord, deps, deadline);
}

/** The parallel arrays as calls: equal lengths, 1 to `maxCalls` entries, no value in a delegatecall. */
function requestCalls(request: TxRequest, maxCalls: number): TxCall[] {
  const { to, value, data } = request;
  if (to.length !== value.length || to.length !== data.length) {
    throw new InvalidRequestError(
      `to, value and data must have equal lengths (got ${to.length}, ${value.length}, ${data.length})`,
      [],
      "ARRAY_LENGTH_MISMATCH",
    );
  }
  if (to.length === 0)
    throw new InvalidRequestError("A request makes at least one call", [{ pointer: "/to", detail: "empty" }]);
  if (to.length > maxCalls) {
    throw new InvalidRequestError(`A request makes at most ${maxCalls} calls (got ${to.length})`, [], "TOO_MANY_CALLS");
  }
  if (request.delegatecall === 1) {
    const index = value.findIndex((v) => v !== 0n);
    if (index >= 0) {
      throw new InvalidRequestError(
        "A delegatecall cannot carry value",
        [{ pointer: `/value/${index}`, detail: "must be 0 with delegatecall 1" }],
        "VALUE_IN_DELEGATECALL",
      );
    }
  }
  return to.map((target, i) => ({ to: target, value: value[i]!, data: data[i]!.toLowerCase() }));
}

/** A request of this app and type, as the API shows it; 404 for another app's (its existence is not revealed). */
export async function findTransaction(
  type: AccountType,
  id: string,
  principal: AppPrincipal,
  repository: TransactionsRepository,
): Promise<WalletTxRecord> {
  const record = await findRequest(id, repository);
  if (!record || !isWalletRecord(record) || record.appId !== principal.appId || record.accountType !== type) {
    throw new NotFoundError("No transaction with this id was submitted by this app");
  }
  return record;
}
