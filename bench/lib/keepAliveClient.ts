import { Agent, request as httpRequest } from "node:http";

/** An answer, read whole. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

/**
 * Requests to one base URL over at most `connections` kept-alive node:http connections. Load generators share the
 * machine (often the process) with what they measure, and fetch costs several times the CPU per request.
 */
export class KeepAliveClient {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(url: string, connections: number) {
    this.base = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  /**
   * Sends `body` (JSON-encoded, if any) with `headers` and reads the whole answer. A request that met a reset on a
   * kept-alive connection it reused is sent once more on a new one: the server closed that idle connection as the
   * request went out (Node's documented keep-alive race; anvil and the service close idle connections), so it never
   * read the request. Every request is still checked against the chain afterwards, so a request read twice would fail
   * the run, not pass unseen.
   */
  async send(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<HttpAnswer> {
    try {
      return await this.sendOnce(method, path, body, headers);
    } catch (error) {
      if (!(error instanceof ReusedConnectionReset)) throw error;
      return this.sendOnce(method, path, body, headers);
    }
  }

  private sendOnce(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    headers: Readonly<Record<string, string>>,
  ): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          agent: this.agent,
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          headers: {
            ...headers,
            ...(payload ? { "Content-Type": "application/json", "Content-Length": payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) =>
        reject(req.reusedSocket && error.code === "ECONNRESET" ? new ReusedConnectionReset(error) : error),
      );
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A reset met by a request on a kept-alive connection it reused: the server had closed it, unread. */
class ReusedConnectionReset extends Error {
  constructor(readonly reset: Error) {
    super(`a reused connection was reset: ${reset.message}`);
  }
}
