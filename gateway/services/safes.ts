import { randomBytes } from "node:crypto";
import { AbiCoder, ZeroAddress, getAddress, keccak256 } from "ethers";
import type { AppPrincipal } from "../auth/appTokens";
import type { ChainCapabilitiesTable } from "../chains/capabilities";
import { ApiError, InvalidRequestError, NotFoundError } from "../errors/apiError";
import { createProxyCallData, predictSafeAddress, safeInitializer } from "../safe/safeCreation";
import type { SafeCall } from "../safe/safeTransaction";
import type { App } from "../storage/appsRepository";
import { SafeExistsError, type SafeRecord, type SafesCursor, type SafesRepository } from "../storage/safesRepository";
import type { SafeAction, TransactionsRepository, TxRecord } from "../storage/transactionsRepository";
import type { RequestDeadline } from "./requestDeadline";
import { safeChain } from "./chainChecks";
import {
  type AcceptanceDeps,
  IdempotencyKeyReusedError,
  commitRequest,
  findRequest,
  requestHash,
} from "./requestAcceptance";
import { actingApp } from "./requestChecks";
import { type SafeActionRequest, safeCallOf } from "./safeActions";

/** Most owners a Safe created here has, the operator included. */
export const MAX_SAFE_OWNERS = 20;

/** What the Safe routes need. */
export interface SafesDeps extends AcceptanceDeps {
  readonly safes: SafesRepository;
  readonly transactions: TransactionsRepository;
  /** What each chain can do here: Safe requests are accepted where it serves Safes, built from its contracts. */
  readonly capabilities: ChainCapabilitiesTable;
  readonly findApp: (appId: string) => Promise<App | undefined>;
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
): Promise<{ safe: SafeRecord; record: TxRecord; created: boolean }> {
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
  const spend = { chain, calls: [deployCall], account: "safe" as const, userId: undefined, checkCalls: false };
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
        userId: "",
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
    const result = await commitRequest({ spend, admission, requestHash: hash, store }, deps, deadline);
    // A replayed key with this request's hash is this Safe's creation: its Safe is stored.
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

/**
 * The salt nonce the factory gets: the app's own, bound to the app. The same app gets the same address for the same
 * signers and saltNonce on every Safe chain; another app cannot claim that address on a chain where it is not
 * created yet (the owners and salt are public once deployed somewhere).
 */
export function appSaltNonce(appId: string, saltNonce: bigint): bigint {
  return BigInt(
    keccak256(AbiCoder.defaultAbiCoder().encode(["string", "string", "uint256"], ["idwallet:safe", appId, saltNonce])),
  );
}

/** Safe's sentinel of its owner list (OwnerManager SENTINEL_OWNERS): never an owner. */
const SENTINEL = "0x0000000000000000000000000000000000000001";

/** The owners of a new Safe: the signers (distinct, no zero or sentinel address) and then the operator. */
function safeOwners(signers: readonly string[], operator: string): string[] {
  const owners = signers.map((s) => getAddress(s));
  const seen = new Set<string>();
  owners.forEach((owner, i) => {
    if (owner === ZeroAddress || owner === SENTINEL) {
      throw new InvalidRequestError("A signer cannot be the zero or sentinel address", [
        { pointer: `/signers/${i}`, detail: "not an owner address" },
      ]);
    }
    if (seen.has(owner))
      throw new InvalidRequestError(`${owner} is listed twice`, [{ pointer: `/signers/${i}`, detail: "duplicate" }]);
    if (owner === getAddress(operator)) {
      throw new InvalidRequestError("The operator is added as an owner by the service; do not list it", [
        { pointer: `/signers/${i}`, detail: "the operator's address" },
      ]);
    }
    seen.add(owner);
  });
  if (owners.length + 1 > MAX_SAFE_OWNERS) {
    throw new InvalidRequestError(
      `A Safe has at most ${MAX_SAFE_OWNERS} owners, the operator included`,
      [],
      "TOO_MANY_SIGNERS",
    );
  }
  return [...owners, getAddress(operator)];
}

/** A page of the app's Safes on a chain, oldest first, with the cursor of the next page. */
export async function listSafes(
  chain: string,
  page: { limit: number; cursor?: string | undefined },
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<{ safes: readonly SafeRecord[]; deployments: ReadonlyMap<string, TxRecord>; nextCursor: string | null }> {
  safeChain(chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  const rows = await deps.safes.list(app.id, chain, page.limit + 1, page.cursor ? parseCursor(page.cursor) : undefined);
  const safes = rows.slice(0, page.limit);
  const last = safes.at(-1);
  const deployments = new Map<string, TxRecord>();
  for (const safe of safes) {
    const record = await deps.transactions.find(safe.deploymentTxId);
    if (record) deployments.set(safe.deploymentTxId, record);
  }
  return {
    safes,
    deployments,
    nextCursor:
      rows.length > page.limit && last ? encodeCursor({ createdAt: last.createdAt, address: last.address }) : null,
  };
}

const encodeCursor = (cursor: SafesCursor): string => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function parseCursor(cursor: string): SafesCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<SafesCursor>;
    if (typeof value.createdAt === "string" && typeof value.address === "string") {
      return { createdAt: value.createdAt, address: value.address };
    }
  } catch {
    // falls through to the 400
  }
  throw new InvalidRequestError(
    "cursor is not one this endpoint gave out",
    [{ pointer: "/cursor", detail: "invalid" }],
    "INVALID_CURSOR",
  );
}

/** The Safe at `address` on `chain`, if this app created it: 404 if unknown, 403 if another app's. */
async function ownSafe(chain: string, address: string, principal: AppPrincipal, deps: SafesDeps): Promise<SafeRecord> {
  const safe = await deps.safes.find(chain, getAddress(address));
  if (!safe) throw new NotFoundError(`No Safe at ${address} on ${chain} was created through this service`);
  if (safe.appId !== principal.appId) {
    throw new ApiError(403, "SAFE_NOT_OWNED", "Forbidden", "This Safe belongs to another app");
  }
  return safe;
}

/**
 * Accepts a Safe transaction (custom call or payout) for a Safe this app created: builds its call, commits the
 * request before the answer if `deadline` has not passed, Idempotency-Key as for wallet transactions.
 */
export async function submitSafeTransaction(
  chain: string,
  address: string,
  request: SafeActionRequest,
  idempotencyKey: string | undefined,
  principal: AppPrincipal,
  deps: SafesDeps,
  deadline: RequestDeadline,
): Promise<{ record: TxRecord; created: boolean }> {
  const { contracts } = safeChain(chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  await deps.policy.countRequest(app);
  const safe = await ownSafe(chain, address, principal, deps);
  const call: SafeCall = safeCallOf(request, safe.address, contracts);
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
  };
  const admission = deps.policy.admit(app, spend);
  const store = () =>
    deps.transactions.create(
      {
        appId: app.id,
        accountType: "safe",
        userId: "",
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
  return commitRequest({ spend, admission, requestHash: hash, store }, deps, deadline);
}

/** A request of this Safe, as the API shows it: 403 for another app's Safe, 404 for an id not of this Safe. */
export async function findSafeTransaction(
  chain: string,
  address: string,
  txUuid: string,
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<TxRecord> {
  safeChain(chain, deps.capabilities);
  const safe = await ownSafe(chain, address, principal, deps);
  const record = await findRequest(txUuid, deps.transactions);
  if (!record || record.accountType !== "safe" || record.chain !== chain || record.sender !== safe.address) {
    throw new NotFoundError(`No transaction ${txUuid} of this Safe`);
  }
  return record;
}

/** The API's view of a Safe request (SafeTxStatus). */
export function safeTransactionView(record: TxRecord) {
  return {
    txUuid: record.id,
    action: record.safeAction ?? null,
    status: record.status,
    chain: record.chain,
    safe: record.sender,
    safeTxHash: record.safeTxHash ?? null,
    transactionHash: record.transactionHash ?? null,
    blockNumber: record.blockNumber ?? null,
    error: record.error ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The API's view of a Safe (SafeAccount). */
export function safeView(safe: SafeRecord, deployment: TxRecord | undefined) {
  return {
    address: safe.address,
    chain: safe.chain,
    owners: safe.owners,
    threshold: 1,
    saltNonce: safe.saltNonce.toString(),
    deployment: {
      txUuid: safe.deploymentTxId,
      status: deployment?.status ?? "queued",
      transactionHash: deployment?.transactionHash ?? null,
    },
    createdAt: safe.createdAt,
  };
}
