import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import type { MaintenanceMonitor } from "../config/maintenanceMonitor";
import { PayloadTooLargeError } from "../errors/apiError";
import { type AdmitApp, authenticate } from "./bearer";
import { closedSignal } from "./closedSignal";
import { type Exchange, type ExchangeSettings, openExchange } from "./exchange";
import { bodyLimitBytes, parseJson, plainBody, readBody } from "./fastBody";
import { sendJson } from "./jsonResponse";
import type { NodeHandler } from "./nodeHandler";
import { type Route, type RouteAnswer, headerOf } from "./route";

/** What the fast path takes of the app beyond an exchange's parts: its tokens and its maintenance state. */
export interface FastPathSettings extends ExchangeSettings {
  readonly tokens: AppTokens;
  readonly admitApp: AdmitApp;
  readonly maintenance: MaintenanceMonitor;
}

/** Where a request's URL matched a route: its parameters, its query string and its path. */
interface UrlMatch {
  readonly params: Readonly<Record<string, string>>;
  readonly query: string;
  readonly path: string;
}

/** A route the fast path serves: how it matches a URL, and the media types it reads itself. */
interface FastRoute {
  readonly route: Route;
  readonly match: (url: string) => UrlMatch | undefined;
  readonly contentType: RegExp;
}

// A path parameter as the route reads it, spelled so that decoding it changes nothing (others go to express).
const PARAM = "([0-9A-Za-z-]{1,64})";
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The routes marked `fast` over plain node:http in front of `app`, from their one definition (http/route.ts), as
 * the express app serves them (http/expressRoutes.ts): the same request id, access line, metrics, headers, bearer
 * rules, body limit, deadline and problems, each by the same function, without express's middleware and router,
 * which cost as much as the rest of a small request. A request it does not read itself goes to `app` unchanged:
 * another route or method, a path spelled otherwise (percent-escapes, a trailing slash, a query the route has no
 * schema for), a Content-Encoding, a chunked body, another media type or charset, a conditional GET (express may
 * answer 304), maintenance (express's gate answers 503).
 */
export function createFastPath(routes: readonly Route[], settings: FastPathSettings, app: NodeHandler): NodeHandler {
  const fast = routes.filter((route) => route.fast).map(compile);
  const limit = fast.some(({ route }) => route.body) ? bodyLimitBytes(settings.bodyLimit) : 0;
  const open = () => !settings.maintenance.current().enabled;
  const takes = ({ route, contentType }: FastRoute, req: IncomingMessage): boolean =>
    (route.body === undefined || (plainBody(req) && contentType.test(req.headers["content-type"] ?? ""))) &&
    (route.method !== "GET" ||
      (req.headers["if-none-match"] === undefined && req.headers["if-modified-since"] === undefined)) &&
    open();

  return (req, res) => {
    const url = req.url ?? "";
    for (const entry of fast) {
      if (req.method !== entry.route.method) continue;
      const match = entry.match(url);
      if (match === undefined) continue;
      if (takes(entry, req)) return serve(entry.route, req, res, match);
      break;
    }
    app(req, res);
  };

  function serve(route: Route, req: IncomingMessage, res: ServerResponse, match: UrlMatch): void {
    const exchange = openExchange(settings, req, res, route.path, match.path);
    if (route.headers) for (const [name, value] of Object.entries(route.headers)) res.setHeader(name, value);
    const read = (principal: AppPrincipal | undefined) =>
      route.body === undefined
        ? answer(route, exchange, req, res, match, principal, undefined)
        : readBody(req, limit, (over, bytes) =>
            over
              ? exchange.fail(new PayloadTooLargeError(settings.bodyLimit))
              : answer(route, exchange, req, res, match, principal, bytes),
          );
    const header = req.headers.authorization;
    const next = route.admit
      ? (principal: AppPrincipal | undefined) => route.admit!(req, principal).then(() => read(principal), exchange.fail)
      : read;
    // Without a header where none is required the request goes on at once, without a promise.
    if (header === undefined && route.auth === "optional") return void next(undefined);
    authenticate(header, settings.tokens, route.auth === "required", settings.admitApp).then(next, exchange.fail);
  }
}

/**
 * Reads the request as the route declares it and answers what its handler returns, or the problem of what is
 * thrown; nothing if the deadline has answered already (while the body was coming).
 */
function answer(
  route: Route,
  { deadline, fail }: Exchange,
  req: IncomingMessage,
  res: ServerResponse,
  match: UrlMatch,
  principal: AppPrincipal | undefined,
  bytes: Buffer | undefined,
): void {
  if (res.headersSent) return;
  let answered: RouteAnswer | Promise<RouteAnswer>;
  try {
    answered = route.handle({
      body: route.body && route.body.schema.parse(parseJson(bytes!)),
      query: route.query && route.query.parse(parseQuery(match.query)),
      params: match.params,
      principal,
      deadline,
      header: (name) => headerOf(req, name),
      closed: () => closedSignal(res),
    });
    if (!(answered instanceof Promise)) return sendAnswer(res, answered);
  } catch (error) {
    return fail(error);
  }
  answered.then((value) => sendAnswer(res, value)).catch(fail);
}

/** A route's answer as express's res.json sends it (sendJson). */
function sendAnswer(res: ServerResponse, answer: RouteAnswer): void {
  if (answer.headers) for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  sendJson(res, answer.status, JSON.stringify(answer.body));
}

/** How the fast path reads a route: its URL matcher (params as PARAM; a query only with a schema), its media types. */
function compile(route: Route): FastRoute {
  const exact = (route.body?.mediaTypes ?? []).filter((type) => !type.includes("*")).map(escapeRegExp);
  const contentType = new RegExp(`^(?:${exact.join("|")})(?:; ?charset=utf-8)?$`, "i");
  const names: string[] = [];
  const pattern = route.path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? (names.push(segment.slice(1)), PARAM) : escapeRegExp(segment)))
    .join("/");
  if (names.length === 0 && route.query === undefined) {
    const whole: UrlMatch = { params: NO_PARAMS, query: "", path: route.path };
    return { route, contentType, match: (url) => (url === route.path ? whole : undefined) };
  }
  const url = new RegExp(`^${pattern}${route.query ? "(?:\\?([^]*))?" : ""}$`);
  const match = (target: string): UrlMatch | undefined => {
    const found = url.exec(target);
    if (found === null) return undefined;
    const params: Record<string, string> = {};
    names.forEach((name, i) => (params[name] = found[i + 1]!));
    const query = found[names.length + 1];
    return { params, query: query ?? "", path: query === undefined ? target : target.slice(0, -query.length - 1) };
  };
  return { route, contentType, match };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
