import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { CcipAnswer } from "../../ens/ccipService";
import { MAX_LOOKUP_BODY_BYTES } from "../../ens/lookupLimits";
import type { NodeHandler } from "../../http/nodeHandler";
import { ApiError, InvalidRequestError, NotFoundError, PayloadTooLargeError } from "../../errors/apiError";
import { PROBLEM_JSON, type ProblemWriter, answerProblem } from "../../http/problemHandler";
import { trackRequest } from "../../http/logging";
import type { TrustProxy } from "../../config/trustProxy";
import { ipBucket, networkBucket } from "../../limits/addressBuckets";
import type { LimitVerdict, Limits } from "../../limits/limits";
import { clientAddress } from "../../http/clientIp";

/** Path prefix of the gateway (the resolver's URL template is `<base>/ccip/{sender}/{data}.json`). */
export const CCIP_PREFIX = "/ccip";

const GET_PATH = /^\/ccip\/([^/]+)\/([^/]+)\.json$/;
const MAX_BODY_BYTES = MAX_LOOKUP_BODY_BYTES;
/** The body limit a 413 names. */
const BODY_LIMIT = `${MAX_BODY_BYTES} bytes`;
/** How often, at most, a failure to count answers in the database is logged (each lookup meanwhile would fail alike). */
const COUNT_FAILURE_LOG_MS = 60_000;
const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type",
  "Access-Control-Max-Age": "86400",
};
const CORS_HEADER_LIST = Object.entries(CORS_HEADERS).flat();

/**
 * The EIP-3668 gateway over plain node:http: GET /ccip/{sender}/{data}.json and POST /ccip {sender, data}.
 * It is public, high-volume and stays up in maintenance, so it runs beside the Express API rather than
 * through its middleware. Two per-client limits (429 + Retry-After): every lookup counted in `limits` (this process's
 * memory: it protects the process at no database cost), and the answers computed and signed for the client (cache
 * misses, the work a lookup can cause) counted in `answerLimits` (the database: one count for every process and
 * instance). CORS, Cache-Control up to the expiry.
 */
export function createCcipHandler(deps: {
  answer(sender: string, data: string, admit?: () => Promise<void>): Promise<CcipAnswer>;
  clock: () => Date;
  refreshMarginSeconds: number;
  requestsPerMinute: number;
  limits: Limits;
  /**
   * Where answers computed are counted: at most `answersPerMinute` per client address (an IPv6 /64) and
   * `answersPerNetworkPerMinute` per network (IPv4 /24, IPv6 /48: one subscriber may hold 65,536 /64s); unset: not
   * counted apart.
   */
  answerLimits?: Limits;
  answersPerMinute?: number;
  answersPerNetworkPerMinute?: number;
  trustProxy: TrustProxy;
  logger: Logger;
}): NodeHandler {
  const limiter = deps.limits.limiter({ name: "ccip.ip", points: deps.requestsPerMinute, windowSeconds: 60 });
  const answersPerMinute = deps.answersPerMinute ?? deps.requestsPerMinute;
  const answerLimiters = deps.answerLimits && {
    address: deps.answerLimits.limiter({ name: "ccip.answers.ip", points: answersPerMinute, windowSeconds: 60 }),
    network: deps.answerLimits.limiter({
      name: "ccip.answers.network",
      points: deps.answersPerNetworkPerMinute ?? 10 * answersPerMinute,
      windowSeconds: 60,
    }),
  };
  let countFailureLoggedAt = -Infinity;
  /**
   * Counts one answer computed for the client at `address`, refusing past its address's or its network's limit. A
   * database that cannot count does not stop names resolving (the gateway stays up while the API is down): the
   * per-process limit still holds, and the failure is logged once a minute.
   */
  const admitAnswer = async (address: string | undefined): Promise<void> => {
    if (answerLimiters === undefined) return;
    const counted = (verdict: Promise<LimitVerdict>) =>
      verdict.catch((error: unknown): LimitVerdict => {
        if (performance.now() - countFailureLoggedAt >= COUNT_FAILURE_LOG_MS) {
          countFailureLoggedAt = performance.now();
          deps.logger.warn({ err: error }, "ccip answers not counted in the database; the per-process limit holds");
        }
        return { allowed: true };
      });
    const verdicts = await Promise.all([
      counted(answerLimiters.address.hit(ipBucket(address))),
      counted(answerLimiters.network.hit(networkBucket(address))),
    ]);
    const wait = Math.max(0, ...verdicts.map((v) => (v.allowed ? 0 : v.retryAfterSeconds)));
    if (wait > 0) throw rateLimited(wait);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> => {
    if (req.method === "OPTIONS") {
      res.setHeader("X-Request-Id", requestId);
      res.writeHead(204, CORS_HEADERS).end();
      return;
    }
    const address = clientAddress(req, deps.trustProxy);
    const verdict = await limiter.hit(ipBucket(address));
    if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds);
    const { sender, data } = req.method === "GET" ? readGetLookup(req) : await readPostLookup(req);
    const answer = await deps.answer(sender, data, () => admitAnswer(address));
    const maxAge = Math.max(0, answer.expires - deps.refreshMarginSeconds - Math.floor(deps.clock().getTime() / 1000));
    // One flat header list, as setHeader would have built it: no per-request header object to merge.
    res.writeHead(200, [
      "X-Request-Id",
      requestId,
      ...CORS_HEADER_LIST,
      "Content-Type",
      "application/json",
      "Cache-Control",
      `public, max-age=${maxAge}`,
    ]);
    res.end(`{"data":"${answer.data}"}`);
  };

  // The API's request id, access line and problem answer (http/logging.ts, http/problemHandler.ts), with the
  // gateway's own headers: its CORS, and the id in its one header list (no per-request header object to merge).
  return (req, res) => {
    const { id, log } = trackRequest(deps.logger, req, res, () => `/${pathOf(req).split("/")[1] ?? ""}`);
    handle(req, res, id).catch((error: unknown) =>
      answerProblem(res, error, { instance: pathOf(req), requestId: id, bodyLimit: BODY_LIMIT, log }, writeProblem(id)),
    );
  };
}

/** Writes a problem with the gateway's CORS headers and request id. */
const writeProblem =
  (requestId: string): ProblemWriter =>
  (res, problem) => {
    res.setHeader("X-Request-Id", requestId);
    res.writeHead(problem.status, { ...CORS_HEADERS, ...problem.headers, "Content-Type": PROBLEM_JSON });
    res.end(JSON.stringify(problem.body));
  };

/** 429 RATE_LIMITED with its Retry-After. */
const rateLimited = (seconds: number): ApiError =>
  new ApiError(
    429,
    "RATE_LIMITED",
    "Too many requests",
    `Retry in ${seconds} s`,
    {},
    { "Retry-After": String(seconds) },
  );

/** The path of a request URL, without its query. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** `decodeURIComponent`, skipped for the usual segment without a %-escape (it would return it unchanged). */
const decodeSegment = (segment: string): string => (segment.includes("%") ? decodeURIComponent(segment) : segment);

/** The lookup of a GET path. */
function readGetLookup(req: IncomingMessage): { sender: string; data: string } {
  const match = GET_PATH.exec(pathOf(req));
  if (!match) throw new NotFoundError("Use GET /ccip/{sender}/{data}.json or POST /ccip");
  try {
    return { sender: decodeSegment(match[1]!), data: decodeSegment(match[2]!) };
  } catch {
    throw new InvalidRequestError("The path has a malformed %-escape");
  }
}

/** The lookup of a POST /ccip JSON body; any other method or path is not found. */
async function readPostLookup(req: IncomingMessage): Promise<{ sender: string; data: string }> {
  const path = pathOf(req);
  if (req.method === "POST" && (path === CCIP_PREFIX || path === `${CCIP_PREFIX}/`)) {
    const body = await readBody(req);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new InvalidRequestError("The body is not valid JSON", [], "MALFORMED_JSON");
    }
    const { sender, data } = (parsed ?? {}) as { sender?: unknown; data?: unknown };
    if (typeof sender !== "string" || typeof data !== "string") {
      throw new InvalidRequestError('The body must be {"sender": "0x…", "data": "0x…"}');
    }
    return { sender, data };
  }
  throw new NotFoundError(`No route for ${req.method} ${path}`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      // Stop keeping the body but let it drain, so the 413 reaches the client.
      req.off("data", onData);
      req.resume();
      reject(new PayloadTooLargeError(BODY_LIMIT));
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
