/**
 * A bounded mixed load over loopback HTTP: a fixed number of lanes, each sending one request at a time, until a
 * deadline. Requests go through node:http with kept-alive connections (fetch costs several times the CPU per request,
 * and the service under load shares this process). Every answer is checked as it arrives; the run records each
 * kind's latencies and every failure, and never stops early, so that one failure does not hide the others.
 */
import type { HttpAnswer, KeepAliveClient } from "../../../bench/lib/keepAliveClient";
import { percentile } from "../../../bench/lib/userOpsLoad";

/** An answer, read whole. */
export type LoadAnswer = HttpAnswer;

/** One request of the mix: what to send and how to tell that the answer is right (throws if not). */
export interface LoadRequest {
  readonly kind: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly check: (answer: LoadAnswer) => void;
}

/** One kind's figures. */
export interface KindFigures {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What a run measured. */
export interface LoadRun {
  readonly seconds: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly kinds: Readonly<Record<string, KindFigures>>;
  /** Every answer that was not the expected one (first 20 kept in full), and every request that got none. */
  readonly errors: number;
  readonly firstErrors: readonly string[];
}

/** Runs `concurrency` lanes, each taking `next()` and sending it, until `durationMs` have passed. */
export async function runMixedLoad(
  client: KeepAliveClient,
  options: { durationMs: number; concurrency: number; next: () => LoadRequest },
): Promise<LoadRun> {
  const latencies = new Map<string, number[]>();
  const firstErrors: string[] = [];
  let errors = 0;
  const fail = (message: string) => {
    errors++;
    if (firstErrors.length < 20) firstErrors.push(message);
  };
  const started = performance.now();
  const deadline = started + options.durationMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      const req = options.next();
      const sent = performance.now();
      try {
        const answer = await client.send(req.method, req.path, req.body, req.headers);
        const ms = performance.now() - sent;
        let list = latencies.get(req.kind);
        if (!list) latencies.set(req.kind, (list = []));
        list.push(ms);
        try {
          req.check(answer);
        } catch (error) {
          fail(`${req.kind} ${req.method} ${req.path.slice(0, 80)}: ${(error as Error).message}`);
        }
      } catch (error) {
        fail(`${req.kind} ${req.method} ${req.path.slice(0, 80)}: no answer (${(error as Error).message})`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  const kinds: Record<string, KindFigures> = {};
  let requests = 0;
  for (const [kind, list] of latencies) {
    list.sort((a, b) => a - b);
    requests += list.length;
    kinds[kind] = {
      count: list.length,
      p50Ms: percentile(list, 50),
      p99Ms: percentile(list, 99),
      maxMs: list.at(-1)!,
    };
  }
  return { seconds, requests, requestsPerSecond: requests / seconds, kinds, errors, firstErrors };
}
