/**
 * Load of the UserOperation bench: POST /v1/kernel/tx at a fixed offered rate with bounded concurrency, and
 * GET /v1/kernel/tx/{id}?wait=true (a few at a time, in submission order) until every request is final.
 * Each request must end `included` with `success: true`; anything else throws.
 *
 * Requests go through node:http with kept-alive connections rather than fetch: the load generator shares the
 * machine (and the chain's process) with what it measures, and fetch costs several times the CPU per request.
 */
import { KeepAliveClient } from "./keepAliveClient";

/** One request: a single call of `data` on `to`, value 0, for `userId` with its proof `auth`. */
export interface UserOpRequest {
  readonly userId: string;
  readonly auth: string;
  readonly to: string;
  readonly data: string;
}

/** How hard to push. */
export interface UserOpsLoadOptions {
  /** Requests sent per second (op i leaves at start + i / rate, or later if every lane is busy). */
  readonly ratePerSecond: number;
  /** Most POSTs in flight at once. */
  readonly concurrency: number;
  /** Most status waits in flight at once. */
  readonly pollers: number;
  /** The run fails if a request is not final this long after the first submission. */
  readonly timeoutMs: number;
  /** The chain's block number, read as each 202 arrives: the run then times inclusion in blocks too. */
  readonly headAtAccept?: () => Promise<number>;
  /**
   * Asked before each send with the requests accepted but not yet seen final: true stops sending (the rest of
   * `requests` is left out of the run), so an offered rate the pipeline cannot sustain ends early.
   */
  readonly stopWhen?: (backlog: number) => boolean;
}

/** One request's life, in wall-clock milliseconds (the service runs on this machine, so clocks agree). */
export interface OpTiming {
  readonly id: string;
  readonly sentAt: number;
  readonly acceptedAt: number;
  /** When the service recorded the request as included (its `updatedAt` once final). */
  readonly includedAt: number;
  readonly transactionHash: string;
  readonly blockNumber: number;
  /** The chain's block number when the 202 arrived (with `headAtAccept`). */
  readonly acceptedBlock?: number;
}

/** What a run measured. */
export interface UserOpsRun {
  readonly ops: readonly OpTiming[];
  /** First submission to last inclusion. */
  readonly seconds: number;
  readonly opsPerSecond: number;
  /** Rate at which the API accepted the requests (first submission to last 202). */
  readonly acceptedPerSecond: number;
  /** Submission → included, in milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** POST round trip, in milliseconds. */
  readonly acceptP99Ms: number;
  /** Requests left unsent because `stopWhen` said so. */
  readonly unsent: number;
}

/** A request the pipeline refused, failed or did not finish: the figures would not measure inclusion. */
export class UserOpsFailure extends Error {
  override readonly name = "UserOpsFailure";
}

interface TxView {
  readonly id: string;
  readonly status: string;
  readonly success: boolean | null;
  readonly error: unknown;
  readonly transactionHash: string | null;
  readonly blockNumber: number | null;
  readonly updatedAt: string;
}

interface Accepted {
  readonly id: string;
  readonly sentAt: number;
  readonly acceptedAt: number;
  readonly block?: Promise<number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Submits every request to `${url}/v1/kernel/tx` (several URLs: request i to the i-th in turn, as a load balancer
 * would), waits until all are included (asking the instance that accepted it), and returns the timings.
 */
export async function runUserOps(
  url: string | readonly string[],
  appToken: string,
  requests: readonly UserOpRequest[],
  options: UserOpsLoadOptions,
): Promise<UserOpsRun> {
  const urls = typeof url === "string" ? [url] : url;
  const clients = urls.map((each) => new KeepAliveClient(each, options.concurrency + options.pollers));
  const clientOf = (index: number) => clients[index % clients.length]!;
  const auth = { Authorization: `Bearer ${appToken}` };
  // Undefined: the request was left unsent (stopWhen).
  const accepted = requests.map(() => deferred<Accepted | undefined>());
  // The pollers await submissions that failed too; mark those rejections handled so only the first one surfaces.
  for (const d of accepted) d.promise.catch(() => undefined);
  const start = Date.now();
  const deadline = start + options.timeoutMs;
  let failure: unknown;
  // Requests sent, or to be: lowered when stopWhen stops the run.
  let end = requests.length;
  let acceptedCount = 0;
  let finalCount = 0;

  let nextSend = 0;
  const submit = async () => {
    while (nextSend < end && failure === undefined) {
      if (options.stopWhen?.(acceptedCount - finalCount)) {
        end = nextSend;
        for (let i = end; i < requests.length; i++) accepted[i]!.resolve(undefined);
        break;
      }
      const index = nextSend++;
      const request = requests[index]!;
      const due = start + (index * 1000) / options.ratePerSecond;
      if (due > Date.now()) await sleep(due - Date.now());
      const sentAt = Date.now();
      try {
        const response = await clientOf(index).send(
          "POST",
          "/v1/kernel/tx",
          {
            userId: request.userId,
            chain: "localhost",
            auth: request.auth,
            to: [request.to],
            value: ["0"],
            data: [request.data],
          },
          auth,
        );
        const text = response.text;
        if (response.status !== 202) {
          throw new UserOpsFailure(`POST /v1/kernel/tx #${index} answered ${response.status}: ${text}`);
        }
        const body = JSON.parse(text) as { id: string; status: string };
        if (body.status !== "queued") throw new UserOpsFailure(`POST #${index} answered status ${body.status}`);
        const block = options.headAtAccept?.();
        // Awaited by the poller; marked handled so a failure is reported there, once.
        block?.catch(() => undefined);
        acceptedCount++;
        accepted[index]!.resolve({ id: body.id, sentAt, acceptedAt: Date.now(), ...(block ? { block } : {}) });
      } catch (error) {
        failure ??= error;
        accepted[index]!.reject(error);
        throw error;
      }
    }
  };

  const timings = new Array<OpTiming>(requests.length);
  let nextPoll = 0;
  const poll = async () => {
    while (nextPoll < end && failure === undefined) {
      const index = nextPoll++;
      const op = await accepted[index]!.promise;
      if (op === undefined) continue;
      const final = await waitFinal(clientOf(index), auth, op.id, deadline);
      finalCount++;
      if (final.status !== "included" || final.success !== true || !final.transactionHash) {
        failure ??= new UserOpsFailure(`request #${index} (${op.id}) ended ${JSON.stringify(final)}`);
        throw failure;
      }
      timings[index] = {
        id: op.id,
        sentAt: op.sentAt,
        acceptedAt: op.acceptedAt,
        includedAt: Date.parse(final.updatedAt),
        transactionHash: final.transactionHash,
        blockNumber: final.blockNumber!,
        ...(op.block ? { acceptedBlock: await op.block } : {}),
      };
    }
  };

  try {
    await Promise.all([
      ...Array.from({ length: options.concurrency }, submit),
      ...Array.from({ length: options.pollers }, poll),
    ]);
  } finally {
    for (const client of clients) client.close();
  }
  return summarize(timings.slice(0, end), requests.length - end);
}

/** GET with ?wait=true (the service holds it up to its wait timeout) until final or `deadline`. */
async function waitFinal(
  client: KeepAliveClient,
  auth: Record<string, string>,
  id: string,
  deadline: number,
): Promise<TxView> {
  for (;;) {
    const { status, text } = await client.send("GET", `/v1/kernel/tx/${id}?wait=true`, undefined, auth);
    if (status !== 200) throw new UserOpsFailure(`GET /v1/kernel/tx/${id} answered ${status}: ${text}`);
    const view = JSON.parse(text) as TxView;
    if (view.status === "included" || view.status === "failed") return view;
    if (Date.now() > deadline) throw new UserOpsFailure(`request ${id} still ${view.status} at the deadline`);
  }
}

function summarize(ops: readonly OpTiming[], unsent: number): UserOpsRun {
  const firstSent = Math.min(...ops.map((o) => o.sentAt));
  const lastIncluded = Math.max(...ops.map((o) => o.includedAt));
  const lastAccepted = Math.max(...ops.map((o) => o.acceptedAt));
  const seconds = (lastIncluded - firstSent) / 1000;
  const latencies = ops.map((o) => o.includedAt - o.sentAt).sort((a, b) => a - b);
  const accepts = ops.map((o) => o.acceptedAt - o.sentAt).sort((a, b) => a - b);
  return {
    ops,
    seconds,
    opsPerSecond: ops.length / seconds,
    acceptedPerSecond: ops.length / ((lastAccepted - firstSent) / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    acceptP99Ms: percentile(accepts, 99),
    unsent,
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
