import { IdwalletError } from "../errors.js";

/** EIP-1193 / EIP-1474 / EIP-5792 error codes the provider answers with. */
export const RPC_ERROR = {
  userRejected: 4001,
  unauthorized: 4100,
  unsupportedMethod: 4200,
  unrecognizedChain: 4902,
  invalidParams: -32602,
  internal: -32603,
  transactionRejected: -32003,
  limitExceeded: -32005,
  unsupportedCapability: 5700,
  unsupportedChainId: 5710,
  unknownBundleId: 5730,
} as const;

/** An EIP-1193 ProviderRpcError: `code`, `message`, and `data` (the service's problem when it refused). */
export class ProviderRpcError extends Error {
  override readonly name = "ProviderRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The EIP-1193 error for a failure of a provider request. The service's refusals keep its problem as `data`: an
 * unauthenticated user or app (401) is 4100 Unauthorized, a refusal of the request itself (403: policy, call rules,
 * a proof of another user) is 4001 as a wallet's user rejecting it would be, bad parameters -32602, a limit -32005.
 */
export function toRpcError(error: unknown): ProviderRpcError {
  if (error instanceof ProviderRpcError) return error;
  if (!(error instanceof IdwalletError)) {
    return new ProviderRpcError(RPC_ERROR.internal, (error as Error)?.message ?? String(error));
  }
  const data = { status: error.status, code: error.code, requestId: error.requestId, problem: error.problem };
  const code =
    error.status === 401
      ? RPC_ERROR.unauthorized
      : error.status === 403
        ? RPC_ERROR.userRejected
        : error.status === 429
          ? RPC_ERROR.limitExceeded
          : error.status >= 400 && error.status < 500
            ? RPC_ERROR.invalidParams
            : RPC_ERROR.internal;
  return new ProviderRpcError(code, error.message, data);
}
