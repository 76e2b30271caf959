import type { IncomingMessage } from "node:http";
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import type { ZodType } from "zod";
import type { RequestDeadline } from "../accept/requestDeadline";
import type { AppPrincipal } from "../auth/appTokens";
import type { ErrorCode } from "../errors/errorCodes";

/**
 * One API route, declared once and served by either transport from this one definition: the express app
 * (http/expressRoutes.ts) and, for a route marked `fast`, the node:http fast path in front of it (http/fastPath.ts).
 * Both run the same steps in the same order, each with the same function: bearer token, `admit`, body (media type,
 * BODY_LIMIT, JSON, `body.schema`), `query`, then `handle`; what either answers is compared byte for byte by the
 * fast-path tests.
 */
export interface Route<Body = unknown, Query = unknown> {
  readonly method: "GET" | "POST";
  /** The path in express's form (`/v1/kernel/tx/:id`); openApiPath gives the document's. */
  readonly path: string;
  /** Whether the bearer token is required; a token that is sent must be valid either way. */
  readonly auth: "required" | "optional";
  /** After the token, before the body: lets the request on or throws (an anonymous client's limit). */
  readonly admit?: (req: IncomingMessage, principal: AppPrincipal | undefined) => Promise<void>;
  /** Headers of every answer the handler gives, problems included (a deprecation notice). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RouteBody<Body>;
  /** The query's schema (express's "simple" parser, node:querystring); without one the fast path takes no query. */
  readonly query?: ZodType<Query>;
  /** The problem codes its OpenAPI operation documents, typed (a test holds them equal to the document's). */
  readonly problems: readonly ErrorCode[];
  /** The function of its `*.openapi.ts` that documents it (with the routes beside it). */
  readonly openapi: OpenApiRegistration;
  /** Also served on the node:http fast path (the hot routes: express's router and middleware cost most of them). */
  readonly fast?: boolean;
  /** The answer to a request that got this far; what it throws is answered as its problem. */
  handle(request: RouteRequest<Body, Query>): RouteAnswer | Promise<RouteAnswer>;
}

/** A route's JSON body. */
export interface RouteBody<Body> {
  readonly schema: ZodType<Body>;
  /**
   * The media types read as JSON (express.json's `type`); the fast path takes the exact ones, in UTF-8. A body in
   * another, or with no Content-Type, is answered 415 (http/jsonBody.ts).
   */
  readonly mediaTypes: readonly string[];
  /** How that 415 names the media types read; `application/json` by default. */
  readonly namedAs?: readonly string[];
}

/** A request as a route's handler reads it, whatever the transport. */
export interface RouteRequest<Body, Query> {
  readonly body: Body;
  readonly query: Query;
  /** The path's parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The app the bearer token authenticates (always one where `auth` is required). */
  readonly principal: AppPrincipal | undefined;
  readonly deadline: RequestDeadline;
  /** A request header (repeated ones joined with ", "). */
  header(name: string): string | undefined;
  /** Aborts when the client goes away. */
  closed(): AbortSignal;
}

/** A route's answer: JSON with its status and headers. */
export interface RouteAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** A `register…Paths` function of a `*.openapi.ts`: documents its routes in the OpenAPI registry. */
export type OpenApiRegistration = (registry: OpenAPIRegistry, bearer: string) => void;

/** `route`, its body and query types checked against its handler, as one of the app's routes. */
export const defineRoute = <Body = undefined, Query = undefined>(route: Route<Body, Query>): Route => route as Route;

/** The route's path as the OpenAPI document writes it: `/v1/kernel/tx/{id}`. */
export const openApiPath = (route: Pick<Route, "path">): string => route.path.replace(/:(\w+)/g, "{$1}");

/** "METHOD /path" in the OpenAPI form, as the tests and docs name routes. */
export const routeName = (route: Pick<Route, "method" | "path">): string => `${route.method} ${openApiPath(route)}`;

/** A request header as both transports read it: repeated ones joined with ", " (as node:http joins most already). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}
