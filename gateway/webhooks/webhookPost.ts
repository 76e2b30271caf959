import { type IncomingMessage, request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { performance } from "node:perf_hooks";
import { guardedLookup, RefusedTarget } from "./webhookLookup";
import { checkWebhookUrl, type TargetRules } from "./webhookTarget";

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
 * deadline over the whole exchange (the host's look-up included: it is cancelled when the attempt ends), and at most
 * 64 KiB of the answer read. `dnsServers` (IP or IP:port) are the nameservers asked; none: the system's.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; rules: TargetRules; dnsServers?: readonly string[] },
): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  // Rules may have tightened since the URL was stored.
  const checked = checkWebhookUrl(url, options.rules);
  if (!checked.ok) return { outcome: "refused", error: checked.reason, durationMs: elapsed() };
  const target = checked.url;
  // Ends the attempt's look-up with it, however it ends: nothing of an attempt outlives its deadline.
  const attempt = new AbortController();

  const requestOptions: RequestOptions = {
    method: "POST",
    // A fresh connection per attempt: a pooled socket would skip the lookup guard.
    agent: false,
    lookup: guardedLookup({
      rules: options.rules,
      timeoutMs: options.timeoutMs,
      dnsServers: options.dnsServers ?? [],
      signal: attempt.signal,
    }),
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
      attempt.abort();
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
