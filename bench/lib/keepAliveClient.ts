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

  /** Sends `body` (JSON-encoded, if any) with `headers` and reads the whole answer. */
  send(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Readonly<Record<string, string>> = {},
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
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
