import dns, { type LookupOptions } from "node:dns";
import { type IncomingMessage, request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { checkWebhookUrl, isAllowedAddress, type TargetRules } from "./webhookTarget";

/** How one delivery attempt ended. */
export interface WebhookResponse {
  readonly outcome: "delivered" | "http_error" | "network_error" | "timeout" | "refused";
  readonly statusCode?: number;
  readonly error?: string;
  readonly durationMs: number;
}

// The receiver's answer is only drained so the exchange ends cleanly; nothing in it is used.
const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_LENGTH = 200;

class RefusedTarget extends Error {}

/**
 * Host-name look-ups in flight at once. dns.lookup runs getaddrinfo on libuv's thread pool (four threads, shared with
 * file and crypto work), and a name whose nameserver never answers holds its thread past the attempt's deadline: an
 * app's names may hold at most these, never the whole pool.
 */
const MAX_LOOKUPS = 2;
let lookupsInFlight = 0;
const waitingLookups: (() => void)[] = [];

/** Runs `lookup` once fewer than MAX_LOOKUPS are in flight; `done` must be called when it has answered. */
function whenLookupFree(lookup: (done: () => void) => void): void {
  const run = () => {
    lookupsInFlight++;
    let finished = false;
    lookup(() => {
      if (finished) return;
      finished = true;
      lookupsInFlight--;
      waitingLookups.shift()?.();
    });
  };
  if (lookupsInFlight < MAX_LOOKUPS) run();
  else waitingLookups.push(run);
}

/**
 * A `lookup` for node:net that connects only to addresses the rules allow: a name registered while it pointed at a
 * public address may point somewhere private by now (DNS rebinding), so the answer is judged here, at connect time.
 */
function guardedLookup(rules: TargetRules): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    whenLookupFree((done) => lookupGuarded(hostname, options, rules, done, callback));
  };
}

/** One guarded look-up: every address `hostname` resolves to must be allowed; `done` frees its look-up slot. */
function lookupGuarded(
  hostname: string,
  options: LookupOptions,
  rules: TargetRules,
  done: () => void,
  callback: Parameters<LookupFunction>[2],
): void {
  dns.lookup(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
    done();
    if (err) return callback(err, "");
    const first = addresses[0];
    if (first === undefined) return callback(new RefusedTarget(`the host ${hostname} has no address`), "");
    // Every answer must pass: net may try any of them (happy eyeballs), and a mixed answer is a rebinding tell.
    for (const { address } of addresses) {
      const verdict = isAllowedAddress(address, rules);
      if (!verdict.ok) return callback(new RefusedTarget(`the host ${hostname} resolves to: ${verdict.reason}`), "");
    }
    // Node 20 asks for `all` when it may race address families (autoSelectFamily), and for one address otherwise.
    if (options.all) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}

function shortError(err: NodeJS.ErrnoException): string {
  // An AggregateError from racing address families may carry an empty message; its code still says what happened.
  const text = err.message !== "" ? err.message : (err.code ?? "network error");
  return text.slice(0, MAX_ERROR_LENGTH);
}

function outcomeOf(statusCode: number): "delivered" | "http_error" {
  // Redirects are not followed (a 3xx could point anywhere), so only 2xx counts as delivered.
  return statusCode >= 200 && statusCode < 300 ? "delivered" : "http_error";
}

/**
 * POST one webhook body: the URL re-checked, every resolved address judged, no redirects, a fresh connection, one
 * deadline over the whole exchange, and at most 64 KiB of the answer read.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; rules: TargetRules },
): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  // Rules may have tightened since the URL was stored.
  const checked = checkWebhookUrl(url, options.rules);
  if (!checked.ok) return { outcome: "refused", error: checked.reason, durationMs: elapsed() };
  const target = checked.url;

  const requestOptions: RequestOptions = {
    method: "POST",
    // A fresh connection per attempt: a pooled socket would skip the lookup guard.
    agent: false,
    lookup: guardedLookup(options.rules),
    headers: {
      ...headers,
      "Content-Type": "application/json",
      "User-Agent": "idwallet-webhooks",
      "Content-Length": String(Buffer.byteLength(body)),
    },
  };
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | undefined;
    const finish = (result: Omit<WebhookResponse, "durationMs">): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...result, durationMs: elapsed() });
    };
    const timer = setTimeout(
      () => finish({ outcome: "timeout", statusCode, error: `no complete answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );

    const onResponse = (res: IncomingMessage): void => {
      statusCode = res.statusCode ?? 0;
      const done = { outcome: outcomeOf(statusCode), statusCode };
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) finish(done);
      });
      res.on("end", () => finish(done));
      // The status line already answered; a receiver that cuts its body short still gave it.
      res.on("error", () => finish(done));
      res.on("close", () => finish(done));
    };

    const req = send(target, requestOptions, onResponse);
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (err instanceof RefusedTarget) finish({ outcome: "refused", error: err.message });
      else finish({ outcome: "network_error", error: shortError(err) });
    });
    req.end(body);
  });
}
