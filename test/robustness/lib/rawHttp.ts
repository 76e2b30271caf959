import { connect } from "node:net";

/** One request as bytes on the wire: any method, request target and header, whatever a real client would refuse. */
export interface RawRequest {
  readonly method: string;
  /** The request target exactly as sent (UTF-8 bytes; unencoded unicode and `..` included). */
  readonly target: string;
  /** Name and value of each header, in order; sent as latin1 bytes. Host and Connection are added. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: Buffer | string;
}

/** What came back. */
export interface RawAnswer {
  readonly status: number;
  /** Header names lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly ms: number;
}

/** Thrown when no complete answer arrives before the deadline: the service hung. */
export class NoAnswerError extends Error {
  override readonly name = "NoAnswerError";
}

/** Bytes of a request, with `Connection: close` so the answer ends when the socket does. */
function requestBytes(request: RawRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const lines = [`${request.method} ${request.target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  const hasLength = (request.headers ?? []).some(([name]) => name.toLowerCase() === "content-length");
  if (body !== undefined && !hasLength) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.concat([
    Buffer.from(lines[0]!, "utf8"),
    Buffer.from(`\r\n${lines.slice(1).join("\r\n")}\r\n\r\n`, "latin1"),
  ]);
  return body === undefined ? head : Buffer.concat([head, body]);
}

/** RFC 9112 §7.1 chunked body → its bytes (a body that is not chunked is returned as is). */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd < 0) return Buffer.concat(parts);
    const size = parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** The status, headers and body of a complete response, or undefined while more bytes are due. */
function parseAnswer(bytes: Buffer, ended: boolean): Omit<RawAnswer, "ms"> | undefined {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const [statusLine, ...headerLines] = bytes.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  if (!Number.isInteger(status)) return undefined;
  // An interim answer (100 Continue) precedes the real one.
  if (status < 200) return parseAnswer(bytes.subarray(headEnd + 4), ended);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = bytes.subarray(headEnd + 4);
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  if (length !== undefined && rest.length >= length) return { status, headers, body: rest.subarray(0, length) };
  if (!ended) return undefined;
  return { status, headers, body: headers["transfer-encoding"] === "chunked" ? unchunk(rest) : rest };
}

/**
 * Sends `request` to 127.0.0.1:`port` over a fresh connection and resolves with the answer; rejects with
 * NoAnswerError when none is complete within `deadlineMs`. A server may answer (413, 431) and close before it read
 * the whole request: the answer counts, the write error does not.
 */
export function sendRaw(port: number, request: RawRequest, deadlineMs: number): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: "127.0.0.1", port });
    let settled = false;
    const finish = (ended: boolean, error?: Error) => {
      if (settled) return;
      const answer = parseAnswer(Buffer.concat(chunks), ended);
      if (answer) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ ...answer, ms: performance.now() - started });
      } else if (ended) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(
          error ?? new NoAnswerError(`connection closed without an answer to ${request.method} ${request.target}`),
        );
      }
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(new NoAnswerError(`no answer within ${deadlineMs} ms to ${request.method} ${request.target}`));
    }, deadlineMs);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    // EPIPE / ECONNRESET after the server answered early: whatever arrived is the answer.
    socket.on("error", (error) => finish(true, error));
    socket.write(requestBytes(request));
  });
}
