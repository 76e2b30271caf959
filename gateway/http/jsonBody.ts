import express, { type Request, type RequestHandler } from "express";
import { UnsupportedMediaTypeError } from "../errors/apiError";

/** application/json and its structured-syntax suffix (RFC 6839): what the phone-login and resolver routes read. */
export const JSON_MEDIA_TYPES: readonly string[] = ["application/json", "application/*+json"];

/** How a route's body is read: its media types, and how a 415 names them. */
export interface JsonBodySettings {
  /** BODY_LIMIT. */
  readonly limit: string;
  /** The media types read as JSON (express.json's `type`); application/json alone by default. */
  readonly mediaTypes?: readonly string[];
  /** How a 415's detail names them; `application/json` by default. */
  readonly namedAs?: readonly string[];
}

/**
 * Whether a request's body is in a media type the route does not read: a Content-Type that is none of `mediaTypes`,
 * or a body sent with no Content-Type at all. Without a body (no Content-Length, or 0, and no Transfer-Encoding) there
 * is nothing to refuse: the schema says whether the route needs one.
 */
export function unreadMediaType(req: Request, mediaTypes: readonly string[]): boolean {
  if (req.headers["content-type"] === undefined) {
    const length = Number(req.headers["content-length"] ?? 0);
    return req.headers["transfer-encoding"] !== undefined || !(length === 0 || Number.isNaN(length));
  }
  // req.is: null without a body, else the matching type or false.
  return req.is([...mediaTypes]) === false;
}

/**
 * A route's JSON body step on express: 415 UNSUPPORTED_MEDIA_TYPE for a body in another media type or none (RFC 9110
 * §15.5.16; body-parser would leave it unread, and the schema would then see no body and blame the fields), then
 * express.json (strict, BODY_LIMIT).
 */
export function jsonBody(settings: JsonBodySettings): RequestHandler[] {
  const mediaTypes = settings.mediaTypes ?? ["application/json"];
  const namedAs = settings.namedAs ?? ["application/json"];
  return [
    (req, _res, next) => next(unreadMediaType(req, mediaTypes) ? new UnsupportedMediaTypeError(namedAs) : undefined),
    express.json({ type: [...mediaTypes], limit: settings.limit, strict: true }),
  ];
}
