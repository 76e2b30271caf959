import autocannon from "autocannon";
import type { BodySource } from "./loadBodies";

/** One load scenario against POST /v1/resolver. */
export interface LoadScenario {
  readonly label: string;
  readonly idsPerRequest: number;
  readonly connections: number;
}

/** What one measured run achieved. */
export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly idsPerSecond: number;
  /** Latency percentiles in milliseconds (autocannon records whole milliseconds). */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** A run in which any request failed: the figures would measure error handling, not resolving. */
export class LoadFailure extends Error {
  override readonly name = "LoadFailure";
}

const HEADERS = { "content-type": "application/json" };

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
  const result = await autocannon({
    url: `${url}/v1/resolver`,
    connections: scenario.connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: "POST",
        headers: HEADERS,
        // Called for every request: each gets ids no earlier request carried.
        setupRequest: (request) => ({ ...request, body: bodies.nextBody(scenario.idsPerRequest) }),
      },
    ],
  });
  const failures = {
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    resets: result.resets,
    mismatches: result.mismatches,
  };
  if (Object.values(failures).some((n) => n > 0) || result.requests.total === 0) {
    throw new LoadFailure(
      `${scenario.label}: ${result.requests.total} requests answered, failures ${JSON.stringify(failures)}, ` +
        `status codes ${JSON.stringify(result.statusCodeStats ?? {})}`,
    );
  }
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  const requestsPerSecond = result.requests.total / elapsed;
  return {
    requests: result.requests.total,
    seconds: elapsed,
    requestsPerSecond,
    idsPerSecond: requestsPerSecond * scenario.idsPerRequest,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
