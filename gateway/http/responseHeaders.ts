import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "cors";
import helmet from "helmet";

/** A connect-style middleware over plain node:http objects (express's request and response are such objects). */
export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The headers every API answer carries, as middleware the express app and the node:http fast paths both run. */
export interface ResponseHeaders {
  /** helmet's default security headers. */
  readonly security: NodeMiddleware;
  /** CORS for CORS_ORIGINS (preflights answered with a 10-minute max age). */
  readonly cors: NodeMiddleware;
}

/** The API's security and CORS headers for `corsOrigins` ("*" for any origin). */
export function createResponseHeaders(corsOrigins: readonly string[]): ResponseHeaders {
  return {
    security: helmet(),
    cors: cors({ origin: corsOrigins.includes("*") ? "*" : [...corsOrigins], maxAge: 600 }),
  };
}
