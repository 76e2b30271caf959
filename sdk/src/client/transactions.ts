import type { components } from "../generated/openapi.js";
import { WaitTimeoutError, unexpectedAnswer } from "../errors.js";
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
  /** Give up after this many milliseconds (default 120 000, at most 2^31 - 1), throwing WaitTimeoutError. */
  readonly timeoutMs?: number;
  /** Abort the wait (the request itself goes on). */
  readonly signal?: AbortSignal;
}

const DEFAULT_WAIT_MS = 120_000;
/** The longest timer JavaScript keeps: a longer AbortSignal.timeout fires after 1 ms (Node warns, browsers do alike). */
const MAX_WAIT_MS = 2 ** 31 - 1;
/** The least time between two held polls: a service that holds none (TX_WAIT_TIMEOUT_MS=0) is not polled flat out. */
export const MIN_POLL_INTERVAL_MS = 1000;
const FINAL = new Set<TxStatus["status"]>(["included", "failed"]);

/** Whether a request has ended: included (see `success`) or failed. */
export const isFinal = (status: { status: string }): boolean => FINAL.has(status.status as TxStatus["status"]);

/** A fresh Idempotency-Key (RFC 4122 random UUID). */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

/**
 * Looks at a request, then long-polls it (`?wait=true`: the service holds each poll) until it is final, a poll at
 * most every MIN_POLL_INTERVAL_MS. One deadline bounds the whole wait, the first look included; `options.signal`
 * aborts it with its reason.
 */
export async function pollUntilFinal<T extends { status: string }>(
  look: (wait: boolean, signal: AbortSignal) => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_WAIT_MS) {
    throw new RangeError(`timeoutMs must be a whole number of milliseconds up to ${MAX_WAIT_MS}, not ${timeoutMs}`);
  }
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let last: T | undefined;
  try {
    last = await look(false, signal);
    while (!isFinal(last)) {
      const asked = Date.now();
      last = await look(true, signal);
      if (!isFinal(last)) await pause(MIN_POLL_INTERVAL_MS - (Date.now() - asked), signal);
    }
    return last;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (signal.aborted) throw new WaitTimeoutError(last, timeoutMs);
    throw error;
  }
}

/** Resolves after `ms` (at once if not positive); rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** Sending calls from a user's wallet, and following them. */
export function transactionMethods(exchange: Exchange) {
  const getTransaction = async (id: string, wait = false, signal?: AbortSignal) => {
    const record = await exchange.asApp((Authorization) =>
      exchange.api.GET("/v1/kernel/tx/{id}", {
        headers: { Authorization },
        params: { path: { id }, query: wait ? { wait: true } : {} },
        signal,
      }),
    );
    // Another request's record would be followed, or reported, as this one's.
    if (record.id?.toLowerCase() !== id.toLowerCase())
      throw unexpectedAnswer(`asked for request ${id}, answered ${String(record.id)}`);
    return record;
  };

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
