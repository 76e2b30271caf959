import { z } from "zod";

/** A JSON-RPC error answer. */
export interface RpcErrorAnswer {
  readonly code: number;
  readonly message: string;
}

/**
 * What an ERC-4337 bundler made of one JSON-RPC call: a result; a JSON-RPC error it answered (in whatever HTTP status
 * it came); or no JSON-RPC answer at all (`unanswered`, why: an HTTP error status without one, no answer in time, a
 * connection refused or closed, a body that is no JSON-RPC answer).
 */
export type BundlerReply =
  { readonly result: unknown } | { readonly error: RpcErrorAnswer } | { readonly unanswered: string };

const ErrorReply = z.object({ error: z.object({ code: z.number().int(), message: z.string() }) });
const ResultReply = z.object({ result: z.unknown() });

/**
 * JSON-RPC 2.0 over HTTP POST to a chain's bundler, one call a request. Every call ends within `timeoutMs`, its
 * connection closed if no answer came by then, and is sent once: a 429 or any other failure is answered as it is (the
 * worker's retry policy decides what follows), never sent again here, as an HTTP client's own retries would do with
 * an operation. User information in the URL goes as HTTP basic authentication.
 */
export class BundlerRpc {
  private readonly url: string;
  private readonly headers: Record<string, string> = { "Content-Type": "application/json" };
  private nextId = 1;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      const user = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.Authorization = `Basic ${Buffer.from(user).toString("base64")}`;
      parsed.username = "";
      parsed.password = "";
    }
    this.url = parsed.toString();
  }

  /** Calls `method`; never throws: a failure is a reply too. */
  async call(method: string, params: readonly unknown[]): Promise<BundlerReply> {
    const body = JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params });
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: this.headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      return { unanswered: failureOf(error, this.timeoutMs) };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const error = ErrorReply.safeParse(json);
    if (error.success) return { error: error.data.error };
    const result = ResultReply.safeParse(json);
    if (status >= 200 && status < 300 && result.success && result.data.result !== undefined) {
      return { result: result.data.result };
    }
    return { unanswered: status >= 200 && status < 300 ? "an answer that is not JSON-RPC" : `HTTP ${status}` };
  }
}

/** Why a call got no HTTP answer: no answer in time, or the connection's failure (refused, reset, closed). */
function failureOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const detail = typeof cause?.code === "string" ? cause.code : String(cause?.message ?? error);
  return `connection failed (${detail})`;
}
