import { randomBytes } from "node:crypto";
import { dataLength, getAddress } from "ethers";
import type { AppPrincipal } from "../../auth/appTokens";
import type { ChainCapabilitiesTable } from "../../accept/chainCapabilities";
import { ApiError, NotFoundError } from "../../errors/apiError";
import { createProxyCallData, predictSafeAddress, safeInitializer } from "../encoding/safeCreation";
import type { App } from "../../auth/app";
import { SafeExistsError, type SafesRepository } from "../model/safesRepository";
import { type SafeRecord } from "../model/safeRecord";
import { type SafeAction, type SafeTxRecord, isSafeRecord } from "../../transactions/txRecord";
import type { TransactionsRepository } from "../../transactions/transactionsRepository";
import type { ListCursors } from "../../transactions/listCursor";
import type { RequestDeadline } from "../../accept/requestDeadline";
import { safeChain } from "../../accept/chainChecks";
import { type L1DataReservation, SAFE_RELAY_EXTRA_BYTES } from "../../userop/l1DataReservation";
import {
  type AcceptanceDeps,
  IdempotencyKeyReusedError,
  commitRequest,
  findRequest,
  requestHash,
} from "../../accept/requestAcceptance";
import { actingApp } from "../../auth/requestChecks";
import { type SafeActionRequest, safeTransactionOf } from "./safeActions";
import { checkSafeCalls } from "./safeCallPolicy";
import { appSaltNonce, safeOwners } from "./safeOwners";

/** What the Safe routes need. */
export interface SafesDeps extends AcceptanceDeps {
  readonly safes: SafesRepository;
  readonly transactions: TransactionsRepository;
  /** What each chain can do here: Safe requests are accepted where it serves Safes, built from its contracts. */
  readonly capabilities: ChainCapabilitiesTable;
  readonly findApp: (appId: string) => Promise<App | undefined>;
  /** The L1 data fee, in gas, a relay may cost on its chain (OP-stack chains): reserved with its gas. */
  readonly l1DataGas: L1DataReservation;
  /** The cursors of a Safe's request listing's pages. */
  readonly cursors: ListCursors;
}

/**
 * Creates a 1-of-n Safe (spec §4.10): owners are `signers` and the operator, threshold 1, the compatibility
 * fallback handler. Its address is computed at once (CREATE2 of the proxy factory) and the Safe with its deployment
 * is committed as a request before the answer, if `deadline` has not passed.
 */
export async function createSafe(
  chain: string,
  request: { signers: readonly string[]; saltNonce?: bigint | undefined },
  idempotencyKey: string | undefined,
  principal: AppPrincipal,
  deps: SafesDeps,
  deadline: RequestDeadline,
): Promise<{ safe: SafeRecord; record: SafeTxRecord; created: boolean }> {
  const { contracts, operator } = safeChain(chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  await deps.policy.countRequest(app);
  const owners = safeOwners(request.signers, operator);
  const saltNonce = request.saltNonce ?? BigInt(`0x${randomBytes(16).toString("hex")}`);
  const initializer = safeInitializer(owners, contracts.fallbackHandler);
  const address = predictSafeAddress(
    contracts.proxyFactory,
    contracts.singleton,
    initializer,
    appSaltNonce(app.id, saltNonce),
  );
  const hash = requestHash(["safe-create", chain, owners, request.saltNonce ?? null]);
  const deployCall = {
    to: contracts.proxyFactory,
    value: 0n,
    data: createProxyCallData(contracts.singleton, initializer, appSaltNonce(app.id, saltNonce)),
  };
  const spend = {
    chain,
    calls: [deployCall],
    account: "safe" as const,
    userId: undefined,
    checkCalls: false,
    l1DataGas: await relayL1DataGas(chain, deployCall.data, deps),
  };
  const admission = deps.policy.admit(app, spend);
  // The Safe and its deployment request are stored in one transaction.
  const store = () =>
    deps.safes.create(
      {
        chain,
        address,
        appId: app.id,
        owners,
        saltNonce,
        singleton: contracts.singleton,
        proxyFactory: contracts.proxyFactory,
        fallbackHandler: contracts.fallbackHandler,
      },
      {
        appId: app.id,
        accountType: "safe",
        chain,
        sender: address,
        calls: [deployCall],
        delegatecall: false,
        idempotencyKey,
        requestHash: hash,
        safeAction: "create",
        reservedGas: admission.reservedGas,
      },
      admission.limits,
    );
  try {
    const result = await commitRequest({ spend, admission, requestHash: hash, store }, isSafeRecord, deps, deadline);
    // A key finds no Safe only if another kind of request took it, whose hash differs: refused already, and here.
    if (!result.safe) throw new IdempotencyKeyReusedError();
    return { safe: result.safe, record: result.record, created: result.created };
  } catch (error) {
    if (!(error instanceof SafeExistsError)) throw error;
    throw new ApiError(
      409,
      "SAFE_EXISTS",
      "Conflict",
      `A Safe with these owners and saltNonce already exists at ${address}`,
      { address },
    );
  }
}

/** The L1 data fee, in gas, a relay of a Safe call with `data` may cost on `chain` (0 where none is charged). */
const relayL1DataGas = (chain: string, data: string, deps: SafesDeps): Promise<bigint> =>
  deps.l1DataGas(deps.capabilities.get(chain)!.chain, dataLength(data) + SAFE_RELAY_EXTRA_BYTES);

/** The Safe at `address` on `chain`, if this app created it: 404 if unknown, 403 if another app's. */
export async function ownSafe(
  chain: string,
  address: string,
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<SafeRecord> {
  const safe = await deps.safes.find(chain, getAddress(address));
  if (!safe) throw new NotFoundError(`No Safe at ${address} on ${chain} was created through this service`);
  if (safe.appId !== principal.appId) {
    throw new ApiError(403, "SAFE_NOT_OWNED", "Forbidden", "This Safe belongs to another app");
  }
  return safe;
}

/**
 * Accepts a Safe transaction (custom call or payout) for a Safe this app created: builds its call, refuses one that
 * could change the Safe's configuration unless the app holds the grant (403 SAFE_CALL_NOT_ALLOWED, before anything
 * is stored), commits the request before the answer if `deadline` has not passed, Idempotency-Key as for wallet
 * transactions.
 */
export async function submitSafeTransaction(
  chain: string,
  address: string,
  request: SafeActionRequest,
  idempotencyKey: string | undefined,
  principal: AppPrincipal,
  deps: SafesDeps,
  deadline: RequestDeadline,
): Promise<{ record: SafeTxRecord; created: boolean }> {
  const { contracts } = safeChain(chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  await deps.policy.countRequest(app);
  const safe = await ownSafe(chain, address, principal, deps);
  const { call, runs } = safeTransactionOf(request, safe.address, contracts);
  checkSafeCalls(runs, safe.address, app.safeConfigGranted);
  const action: SafeAction = request.action;
  const hash = requestHash(["safe", chain, safe.address, request]);
  const calls = [{ to: call.to, value: call.value, data: call.data.toLowerCase() }];
  // A custom call's target and value are the app's choice, as a wallet call's are; payouts go where their
  // recipients are, through the token or MultiSend, and are bounded by the budget alone.
  const spend = {
    chain,
    calls,
    account: "safe" as const,
    userId: undefined,
    checkCalls: action === "custom",
    delegatecall: call.operation === 1,
    l1DataGas: await relayL1DataGas(chain, call.data, deps),
  };
  const admission = deps.policy.admit(app, spend);
  const store = () =>
    deps.transactions.create(
      {
        appId: app.id,
        accountType: "safe",
        chain,
        sender: safe.address,
        calls,
        delegatecall: call.operation === 1,
        idempotencyKey,
        requestHash: hash,
        safeAction: action,
        reservedGas: admission.reservedGas,
      },
      admission.limits,
    );
  return commitRequest({ spend, admission, requestHash: hash, store }, isSafeRecord, deps, deadline);
}

/** A request of this Safe, as the API shows it: 403 for another app's Safe, 404 for an id not of this Safe. */
export async function findSafeTransaction(
  chain: string,
  address: string,
  txUuid: string,
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<SafeTxRecord> {
  safeChain(chain, deps.capabilities);
  const safe = await ownSafe(chain, address, principal, deps);
  const record = await findRequest(txUuid, deps.transactions);
  if (!record || !isSafeRecord(record) || record.chain !== chain || record.sender !== safe.address) {
    throw new NotFoundError(`No transaction ${txUuid} of this Safe`);
  }
  return record;
}
