import { expect } from "chai";
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { createExpressApp, routeDefinitions } from "../../../gateway/app";
import { appServices } from "../../../gateway/appServices";
import { ERROR_CODES } from "../../../gateway/errors/errorCodes";
import { createMetrics } from "../../../gateway/http/metrics";
import { type Route, openApiPath, routeName } from "../../../gateway/http/route";
import { mountedRoutes } from "../../helpers/mountedRoutes";
import { buildTestApp } from "../../helpers/testApp";

// A route declared once (gateway/http/route.ts) names its OpenAPI registration and the problem codes it answers; these
// hold the declaration, the document and the mounted app to each other.

const KNOWN_CODES = new Set<string>(ERROR_CODES.map((entry) => entry.code));

/** The problem codes the document's operation of `route` names (in its responses), as its registration writes it. */
function documentedCodes(route: Route): string[] | undefined {
  const registry = new OpenAPIRegistry();
  route.openapi(registry, "bearer");
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "routes", version: "1" },
  }) as { paths?: Record<string, Record<string, { responses?: object }>> };
  const operation = document.paths?.[openApiPath(route)]?.[route.method.toLowerCase()];
  if (operation === undefined) return undefined;
  const named = JSON.stringify(operation.responses ?? {}).match(/\b[A-Z][A-Z0-9_]+\b/g) ?? [];
  return [...new Set(named.filter((word) => KNOWN_CODES.has(word)))].sort();
}

describe("routes declared once: their document, problem codes and mounting", () => {
  let built: ReturnType<typeof buildTestApp>;
  let routes: Route[];

  before(() => {
    built = buildTestApp();
    const { resolver, transactions } = routeDefinitions(built.deps, createMetrics(), appServices(built.deps));
    routes = [...resolver, ...transactions];
  });
  after(() => built.close());

  it("each is documented by the registration it names, with exactly the problem codes it declares", () => {
    expect(routes.map(routeName)).to.deep.equal([
      "POST /v1/resolver",
      "POST /v1/kernel/tx",
      "GET /v1/kernel/tx/{id}",
      "GET /v1/kernel/tx",
      "POST /v1/base/tx",
      "GET /v1/base/tx/{id}",
    ]);
    for (const route of routes) {
      expect(documentedCodes(route), routeName(route)).to.deep.equal([...route.problems].sort());
    }
  });

  it("each is mounted on the express app; the hot ones are marked for the fast path", () => {
    expect(mountedRoutes(createExpressApp(built.deps))).to.include.members(routes.map(routeName));
    expect(routes.filter((route) => route.fast).map(routeName)).to.deep.equal([
      "POST /v1/resolver",
      "POST /v1/kernel/tx",
      "GET /v1/kernel/tx/{id}",
    ]);
  });
});
