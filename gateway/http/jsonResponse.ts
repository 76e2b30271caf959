import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";

/**
 * express's default ETag of a body (its `etag fn`, the `etag` package made weak): the byte length in hex and the
 * first 27 base64 characters of the SHA-1 of the bytes.
 */
export const weakEtag = (body: Buffer): string =>
  `W/"${body.length.toString(16)}-${createHash("sha1").update(body).digest("base64").substring(0, 27)}"`;

/**
 * Sends JSON `text` with `status` as express's res.json does, for node:http handlers that answer as the express app
 * would: `<mediaType>; charset=utf-8`, Content-Length and a weak ETag.
 */
export function sendJson(res: ServerResponse, status: number, text: string, mediaType = "application/json"): void {
  const body = Buffer.from(text, "utf8");
  res.statusCode = status;
  res.setHeader("Content-Type", `${mediaType}; charset=utf-8`);
  res.setHeader("Content-Length", String(body.length));
  res.setHeader("ETag", weakEtag(body));
  res.end(body);
}
