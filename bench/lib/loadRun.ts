import autocannon from "autocannon";
import type { BodySource } from "./loadBodies";

/** One load scenario against POST /v1/resolver. */
export interface LoadScenario {
  readonly label: string;
  readonly idsPerRequest: number;
  readonly connections: number;
}

/** What one measured run achieved. */
export interface MeasuredRun {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds (autocannon records whole milliseconds). */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** What one measured resolver run achieved. */
export interface LoadResult extends MeasuredRun {
  readonly idsPerSecond: number;
}

/** A run in which any request failed: the figures would measure error handling, not resolving. */
export class LoadFailure extends Error {
  override readonly name = "LoadFailure";
}

const HEADERS = { "content-type": "application/json" };

/**
 * Runs autocannon with `options` (a 10 s request timeout unless set) and throws LoadFailure, naming
 * `label`, unless every response was a 2xx and no request errored, timed out or was reset.
 */
export async function measure(label: string, options: autocannon.Options): Promise<MeasuredRun> {
  const result = await autocannon({ timeout: 10, ...options });
  const failures = {
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    resets: result.resets,
    mismatches: result.mismatches,
  };
  if (Object.values(failures).some((n) => n > 0) || result.requests.total === 0) {
    throw new LoadFailure(
      `${label}: ${result.requests.total} requests answered, failures ${JSON.stringify(failures)}, ` +
        `status codes ${JSON.stringify(result.statusCodeStats ?? {})}`,
    );
  }
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    requests: result.requests.total,
    seconds: elapsed,
    requestsPerSecond: result.requests.total / elapsed,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

/**
 * Runs autocannon against `${url}/v1/resolver` for `seconds`, each request with a fresh body from
 * `bodies`, and throws LoadFailure unless every response was a 2xx and no request errored or timed out.
 */
export async function runLoad(
  url: string,
  scenario: LoadScenario,
  bodies: BodySource,
  seconds: number,
): Promise<LoadResult> {
  const run = await measure(scenario.label, {
    url: `${url}/v1/resolver`,
    connections: scenario.connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        headers: HEADERS,
        // Called for every request: each gets ids no earlier request carried.
        setupRequest: (request) => ({ ...request, body: bodies.nextBody(scenario.idsPerRequest) }),
      },
    ],
  });
  return { ...run, idsPerSecond: run.requestsPerSecond * scenario.idsPerRequest };
}
