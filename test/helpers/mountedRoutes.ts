import type { Express } from "express";

/** What express 5's router keeps of each `use` or route (router 2.x `Layer`). */
interface Layer {
  readonly route?: { readonly path: unknown; readonly methods: Readonly<Record<string, boolean>> };
  readonly handle: unknown;
  /** Mounted with `use` at the root: its routes' paths are the full paths. */
  readonly slash?: boolean;
}

/**
 * Every route an express 5 app serves, as "METHOD /path" in OpenAPI form (`:id` → `{id}`), walking nested routers.
 * A router mounted under a path would hide its routes' full paths (the layer keeps only a matcher), so it throws.
 */
export function mountedRoutes(app: Express): string[] {
  const walk = (stack: readonly Layer[]): string[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const { path, methods } = layer.route;
        if (typeof path !== "string") throw new Error(`a route path that is not a string: ${String(path)}`);
        const openApiPath = path.replace(/:(\w+)/g, "{$1}");
        return Object.keys(methods)
          .filter((method) => methods[method])
          .map((method) => `${method === "_all" ? "ALL" : method.toUpperCase()} ${openApiPath}`);
      }
      const nested = (layer.handle as { stack?: readonly Layer[] }).stack;
      if (!nested) return [];
      if (!layer.slash) throw new Error("a router mounted under a path: its routes' full paths cannot be read");
      return walk(nested);
    });
  return walk((app as unknown as { router: { stack: readonly Layer[] } }).router.stack);
}
