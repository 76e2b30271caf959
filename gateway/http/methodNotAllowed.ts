import type { Express, RequestHandler } from "express";
import { MethodNotAllowedError } from "../errors/apiError";

/** What express 5's router (router 2.x) keeps of each `use` and route: express lists its routes nowhere else. */
interface RouterLayer {
  readonly route?: { readonly path: unknown; readonly methods: Readonly<Record<string, boolean>> };
  readonly handle?: { readonly stack?: readonly RouterLayer[] };
  /** Mounted with `use` at the root: its routes' paths are full paths. */
  readonly slash?: boolean;
}

/** A mounted path, as express matches it, and the methods routes take there. */
interface MountedPath {
  readonly pattern: RegExp;
  readonly methods: readonly string[];
}

// The order an Allow header lists methods in.
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * The express matcher of a route path made of literal segments and `:params` (every route of the service); undefined
 * for another pattern (`*`, `{…}`), which is then left to the 404. As express's router: case-insensitive, a trailing
 * slash optional, a parameter any non-empty segment.
 */
function patternOf(path: string): RegExp | undefined {
  if (/[*{}()?+]/.test(path)) return undefined;
  const segments = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.\\^$|[\]]/g, "\\$&")));
  return new RegExp(`^${segments.join("/")}/?$`, "i");
}

/** Every route path of `app`'s router, nested routers (mounted at the root) included, with its methods. */
function mountedPaths(app: Express): MountedPath[] {
  const walk = (stack: readonly RouterLayer[]): MountedPath[] =>
    stack.flatMap((layer) => {
      // A router mounted under a path keeps only a matcher of it: its routes are left to the 404 (none is, today).
      if (layer.route === undefined) return layer.slash ? walk(layer.handle?.stack ?? []) : [];
      const { path, methods } = layer.route;
      const pattern = typeof path === "string" ? patternOf(path) : undefined;
      const named = Object.keys(methods).filter((method) => methods[method] && method !== "_all");
      return pattern ? [{ pattern, methods: named.map((method) => method.toUpperCase()) }] : [];
    });
  return walk((app as unknown as { router: { stack: readonly RouterLayer[] } }).router.stack);
}

/**
 * The last route of `app`, before its 404: a request no route answered whose path is a route's answers 405
 * METHOD_NOT_ALLOWED with `Allow` (RFC 9110 §15.5.6; HEAD where GET is taken, OPTIONS for CORS preflights), not 404;
 * any other goes on to the 404. Reads the routes mounted so far: install it after them.
 */
export function methodNotAllowed(app: Express): RequestHandler {
  const paths = mountedPaths(app);
  return (req, _res, next) => {
    const taken = new Set(paths.filter(({ pattern }) => pattern.test(req.path)).flatMap(({ methods }) => methods));
    const served = taken.has(req.method) || (req.method === "HEAD" && taken.has("GET"));
    if (taken.size === 0 || served) return next();
    const routeMethods = METHOD_ORDER.filter((method) => taken.has(method));
    const allow = METHOD_ORDER.filter((method) => taken.has(method) || (method === "HEAD" && taken.has("GET")));
    next(new MethodNotAllowedError(req.method, req.path, routeMethods, [...allow, "OPTIONS"]));
  };
}
