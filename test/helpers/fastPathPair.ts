import { expect } from "chai";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type AppDeps, createExpressApp, createFastPaths } from "../../gateway/app";
import { appServices } from "../../gateway/appServices";
import type { Config } from "../../gateway/config/schema";
import { type Metrics, createMetrics } from "../../gateway/http/metrics";
import type { NodeHandler } from "../../gateway/http/nodeHandler";
import { createResponseHeaders } from "../../gateway/http/responseHeaders";
import { capturingLogger } from "./capturingLogger";
import { type RawAnswer, type RawRequest, sendRaw } from "../robustness/lib/rawHttp";

/**
 * A node:http fast path and the express app it stands in front of, each on its own loopback port, for tests that send
 * every request to both and compare what they answer, log and count.
 */
export interface FastPathPair {
  readonly fast: { readonly lines: readonly string[]; readonly metrics: Metrics };
  readonly reference: { readonly lines: readonly string[]; readonly metrics: Metrics };
  /** The requests the fast path passed on to its express app. */
  readonly passedOn: readonly string[];
  /** The answers of the fast path and of the express app alone to `request`. */
  both(request: RawRequest): Promise<[RawAnswer, RawAnswer]>;
}

/**
 * The two sides of a pair over the same dependencies, listening on loopback: the fast paths in front of an express
 * app, and an express app alone; each with its own captured log lines, metrics and services.
 */
export async function listenAsPair(deps: AppDeps, corsOrigins: Config["corsOrigins"]) {
  const side = () => {
    const lines: string[] = [];
    const sideDeps = { ...deps, logger: capturingLogger(lines) };
    const metrics = createMetrics();
    const headers = createResponseHeaders(corsOrigins);
    const services = appServices(sideDeps);
    const app = createExpressApp(sideDeps, metrics, headers, services);
    return { lines, deps: sideDeps, metrics, headers, services, app };
  };
  const fast = side();
  const reference = side();
  /** The requests the fast path passed on to its express app. */
  const passedOn: string[] = [];
  const handler = createFastPaths(fast.deps, fast.metrics, fast.headers, fast.services, (req, res) => {
    passedOn.push(`${req.method} ${req.url}`);
    fast.app(req, res);
  });
  const servers = [await listenOn(handler), await listenOn(reference.app)];
  return { fast, reference, passedOn, servers };
}

/** Serves `handler` on a free loopback port. */
export async function listenOn(handler: NodeHandler): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Closes servers from listenOn, their connections too. */
export async function closeAll(servers: readonly { server: Server }[]): Promise<void> {
  for (const { server } of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Sends `request` to each port in turn (as `forPort` has it for that port). */
export const sendToBoth = async (
  ports: readonly number[],
  request: RawRequest,
  deadlineMs: number,
  forPort: (request: RawRequest, index: number) => RawRequest = (r) => r,
): Promise<[RawAnswer, RawAnswer]> => [
  await sendRaw(ports[0]!, forPort(request, 0), deadlineMs),
  await sendRaw(ports[1]!, forPort(request, 1), deadlineMs),
];

/** The access-log lines, without what differs from run to run (`normalize` rewrites the rest of a line first). */
export const loggedLines = (lines: readonly string[], normalize: (line: string) => string = (line) => line) =>
  lines.map((line) => {
    const {
      time: _t,
      pid: _p,
      hostname: _h,
      responseTime: _r,
      ...rest
    } = JSON.parse(normalize(line)) as Record<string, unknown>;
    return rest;
  });

/** The lines of a registry's text whose metric names match `names`. */
export async function metricLines(metrics: Metrics, names: RegExp): Promise<string[]> {
  return (await metrics.registry.metrics()).split("\n").filter((line) => names.test(line));
}

/**
 * Sends every case to both sides, one at a time, each with its own X-Request-Id, and checks the answers (as
 * `comparable` sees them), then the access lines and the metrics named by `counted` of the whole series; every case
 * must have been served by the fast path. Returns the fast path's answers.
 */
export async function expectSameAnswers(
  pair: FastPathPair,
  cases: readonly (readonly [string, RawRequest])[],
  options: { comparable: (answer: RawAnswer) => unknown; counted: RegExp; normalize?: (line: string) => string },
): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  for (const [index, [name, request]] of cases.entries()) {
    const sent = { ...request, headers: [...(request.headers ?? []), ["X-Request-Id", `case-${index}`]] as const };
    const [fast, reference] = await pair.both(sent);
    expect(options.comparable(fast), name).to.deep.equal(options.comparable(reference));
    answers.push(fast);
  }
  expect(pair.passedOn, "every case was served by the fast path").to.deep.equal([]);
  expect(loggedLines(pair.fast.lines, options.normalize)).to.deep.equal(
    loggedLines(pair.reference.lines, options.normalize),
  );
  expect(await metricLines(pair.fast.metrics, options.counted)).to.deep.equal(
    await metricLines(pair.reference.metrics, options.counted),
  );
  return answers;
}
