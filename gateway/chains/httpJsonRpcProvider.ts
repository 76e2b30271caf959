import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { type JsonRpcPayload, JsonRpcProvider, type JsonRpcResult, type Network, makeError } from "ethers";

/** Sockets kept open per chain: the worker's lookups run a few at a time, bundles one at a time. */
const MAX_SOCKETS = 32;

/**
 * A JSON-RPC provider whose requests go over node:http(s) with kept-alive connections. ethers' own transport
 * converts each body to and from UTF-8 in JavaScript, which for bundle-sized calls (a handleOps or a simulation
 * carries tens of kilobytes) costs more CPU than the rest of the request; Buffer does it natively. Failures keep
 * ethers' codes: TIMEOUT, NETWORK_ERROR (no answer) and SERVER_ERROR (an HTTP error status).
 */
export class HttpJsonRpcProvider extends JsonRpcProvider {
  private readonly url: URL;
  private readonly agent: HttpAgent;

  constructor(
    url: string,
    network: Network,
    private readonly timeoutMs: number,
  ) {
    // staticNetwork: no chain-id probing on every call; batchMaxCount 1: one request per HTTP call.
    super(url, network, { staticNetwork: network, batchMaxCount: 1 });
    this.url = new URL(url);
    this.agent =
      this.url.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS })
        : new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const answer = JSON.parse(await this.post(Buffer.from(JSON.stringify(payload)))) as JsonRpcResult | JsonRpcResult[];
    return Array.isArray(answer) ? answer : [answer];
  }

  override destroy(): void {
    this.agent.destroy();
    super.destroy();
  }

  private post(body: Buffer): Promise<string> {
    const send = this.url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        this.url,
        {
          method: "POST",
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { "Content-Type": "application/json", "Content-Length": body.length },
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", (error) => reject(networkError(error)));
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = response.statusCode ?? 0;
            // A JSON-RPC error may come with an HTTP error status; its body still says what happened.
            if ((status < 200 || status >= 300) && !text.startsWith("{")) {
              reject(makeError(`the RPC answered HTTP ${status}`, "SERVER_ERROR", { info: { status } }));
            } else resolve(text);
          });
        },
      );
      request.on("timeout", () => {
        request.destroy();
        reject(makeError(`no RPC answer within ${this.timeoutMs} ms`, "TIMEOUT", { operation: "request" }));
      });
      request.on("error", (error) => reject(networkError(error)));
      request.end(body);
    });
  }
}

function networkError(error: Error) {
  return makeError(`RPC connection failed: ${error.message}`, "NETWORK_ERROR", { event: "request" });
}
