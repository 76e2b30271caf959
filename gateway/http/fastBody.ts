import type { IncomingMessage } from "node:http";
import { InvalidRequestError } from "../errors/apiError";

/**
 * Reading a JSON body on a node:http fast path as express.json (body-parser, strict) reads it, for the requests the
 * fast path takes: a Content-Length, no Content-Encoding or chunking, UTF-8.
 */

// body-parser's strict mode: a JSON text must be an object or an array. JSON's whitespace is these four.
const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*(.)/s;
const BYTE_ORDER_MARK = 0xfeff;
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 * 1024 };
const noop = () => undefined;

/** BODY_LIMIT in bytes, as body-parser reads it (`512kb`, `1mb`: binary units). */
export function bodyLimitBytes(limit: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(limit);
  if (!match) throw new Error(`body limit ${limit} is not a size such as 512kb or 1mb`);
  return Number(match[1]) * UNITS[match[2]!.toLowerCase()]!;
}

/** Whether the fast path can read this request's body itself: its length declared, sent plain. */
export const plainBody = (req: IncomingMessage): boolean =>
  req.headers["content-length"] !== undefined &&
  req.headers["transfer-encoding"] === undefined &&
  req.headers["content-encoding"] === undefined;

/**
 * Reads the whole body, keeping at most `limit` bytes: over it (as declared or as sent), the rest is read and dropped
 * and `done` is told so once the request has ended (a 413 then, as body-parser answers: the client is not cut off mid-send).
 */
export function readBody(req: IncomingMessage, limit: number, done: (over: boolean, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = Number(req.headers["content-length"]) > limit;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) over = true;
    if (!over) chunks.push(chunk);
  });
  req.on("end", () => {
    done(over, over ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  // A client gone mid-body: there is no one to answer (the deadline timer ends with the response).
  req.on("error", noop);
}

/** The JSON body as express.json (strict, UTF-8) reads it: byte-order mark dropped, an empty body `{}`. */
export function parseJson(bytes: Buffer): unknown {
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (text.length === 0) return {};
  const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
  if (first === "{" || first === "[") {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // As below.
    }
  }
  throw new InvalidRequestError("The body is not valid JSON", [], "MALFORMED_JSON");
}
