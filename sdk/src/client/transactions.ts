import type { components } from "../generated/openapi.js";
import { WaitTimeoutError } from "../errors.js";
import type { Exchange } from "./exchange.js";

/** A transaction request and where it stands. */
export type TxStatus = components["schemas"]["TxStatus"];

/** One call from the wallet. */
export interface Call {
  readonly to: `0x${string}`;
  /** Wei, as a bigint or a decimal / 0x-hex string; 0 if omitted. */
  readonly value?: bigint | string;
  /** Call data; empty if omitted. */
  readonly data?: `0x${string}`;
}

/** What a request from a user's wallet names. */
export interface WalletRequest {
  readonly userId: string;
  /** The service's chain name (`GET /v1/networks`), e.g. `base` or `localhost`. */
  readonly chain: string;
  /** The user's proof (e.g. the phone login's user token). */
  readonly auth: string;
  /** Retries with the same key return the first request's record; a fresh one is made when omitted. */
  readonly idempotencyKey?: string;
}

/** How long and how a wait for the end of a request may go. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 120 000), throwing WaitTimeoutError. */
  readonly timeoutMs?: number;
  /** Abort the wait (the request itself goes on). */
  readonly signal?: AbortSignal;
}

const DEFAULT_WAIT_MS = 120_000;
const FINAL = new Set<TxStatus["status"]>(["included", "failed"]);

/** Whether a request has ended: included (see `success`) or failed. */
export const isFinal = (status: { status: string }): boolean => FINAL.has(status.status as TxStatus["status"]);

/** A fresh Idempotency-Key (RFC 4122 random UUID). */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

/**
 * Looks at a request, then long-polls it (`?wait=true`: the service holds each poll) until it is final. One deadline
 * bounds the whole wait, the first look included; `options.signal` aborts it with its reason.
 */
export async function pollUntilFinal<T extends { status: string }>(
  look: (wait: boolean, signal: AbortSignal) => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let last: T | undefined;
  try {
    last = await look(false, signal);
    while (!isFinal(last)) last = await look(true, signal);
    return last;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (signal.aborted) throw new WaitTimeoutError(last, timeoutMs);
    throw error;
  }
}

/** Sending calls from a user's wallet, and following them. */
export function transactionMethods(exchange: Exchange) {
  const getTransaction = (id: string, wait = false, signal?: AbortSignal) =>
    exchange.asApp((Authorization) =>
      exchange.api.GET("/v1/kernel/tx/{id}", {
        headers: { Authorization },
        params: { path: { id }, query: wait ? { wait: true } : {} },
        signal,
      }),
    );

  /** Sends calls in one UserOperation: all run, in order, or none; gas sponsored. Answers at once (queued). */
  const sendCalls = (request: WalletRequest & { calls: readonly Call[]; delegatecall?: boolean }) =>
    exchange.asApp((Authorization) =>
      exchange.api.POST("/v1/kernel/tx", {
        headers: { Authorization, "Idempotency-Key": request.idempotencyKey ?? newIdempotencyKey() },
        body: {
          userId: request.userId,
          chain: request.chain,
          auth: request.auth,
          to: request.calls.map((call) => call.to),
          value: request.calls.map((call) => (call.value ?? 0n).toString()),
          data: request.calls.map((call) => call.data ?? "0x"),
          ...(request.delegatecall ? { delegatecall: 1 as const } : {}),
        },
      }),
    );

  return {
    sendCalls,

    /** Sends one call (sendCalls with a single call). */
    sendTransaction: (request: WalletRequest & Call) =>
      sendCalls({ ...request, calls: [{ to: request.to, value: request.value, data: request.data }] }),

    /** Where a request stands now. */
    getTransaction: (id: string) => getTransaction(id),

    /** Follows a request until it is included or failed (the service holds each poll), bounded and abortable. */
    waitForTransaction: (id: string, options: WaitOptions = {}): Promise<TxStatus> =>
      pollUntilFinal((wait, signal) => getTransaction(id, wait, signal), options),
  };
}
