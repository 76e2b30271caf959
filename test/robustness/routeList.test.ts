import { expect } from "chai";
import pino from "pino";
import request from "supertest";
import { createApp, createExpressApp } from "../../gateway/app";
import type { NodeHandler } from "../../gateway/http/nodeHandler";
import { createCcipGateway } from "../../gateway/routes/ccip/ccipGateway";
import { testCustodySigner } from "../helpers/keySigners";
import { mountedRoutes } from "../helpers/mountedRoutes";
import { TEST_NOW, buildTestApp } from "../helpers/testApp";
import { NOT_FUZZED, ROUTES } from "./lib/routes";
import { serviceSettings } from "./lib/testService";

/** The methods a route may be mounted with (HEAD follows GET; OPTIONS is every path's CORS preflight). */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** What fills every `{param}` of a probed path: an address, which each route's pattern takes. */
const PARAM = "0x00000000000000000000000000000000000000e5";

/**
 * Whether an answer says that nothing is mounted at its method and path: the express app's not-found
 * ("No route for …", http/problemHandler.ts) or the CCIP gateway's ("No route for …", "Use GET /ccip/… or POST /ccip"),
 * or the express app's 405 for a path mounted with other methods only (http/methodNotAllowed.ts). A route that is
 * mounted answers anything else: a problem of its own (401 without a token, 400 for no body…) or a 2xx.
 */
const routedNowhere = (answer: request.Response): boolean =>
  (answer.status === 404 && /^(No route for |Use GET )/.test(String(answer.body.detail))) ||
  (answer.status === 405 && answer.body.code === "METHOD_NOT_ALLOWED");

/**
 * The service's full request handler, composed as start-up composes it (app.ts): the CCIP gateway, the node:http fast
 * paths, then the express app.
 */
async function fullService() {
  const built = buildTestApp(await serviceSettings());
  const [ccipKey] = built.config.ens.signerKeys;
  const ccipGateway = createCcipGateway(
    built.config,
    testCustodySigner(ccipKey!),
    () => TEST_NOW,
    pino({ level: "silent" }),
    built.knownProviders,
    built.deps.limits,
  );
  return { built, handler: createApp({ ...built.deps, ccipGateway }) };
}

/**
 * "METHOD /template" for each method × path template that `handler` answers as a route, of the paths given; the Allow
 * header of a 405 of each template put in `allowed`.
 */
async function answeredRoutes(
  handler: NodeHandler,
  templates: readonly string[],
  allowed: Map<string, string>,
): Promise<string[]> {
  const answered: string[] = [];
  for (const template of templates) {
    const path = template.replace(/\{\w+\}/g, PARAM);
    for (const method of METHODS) {
      const probe = request(handler)[method.toLowerCase() as Lowercase<typeof method>](path);
      // A JSON body, as the fast paths take it (they leave other requests to the express app).
      const answer = await (method === "GET" ? probe : probe.send({}));
      if (!routedNowhere(answer)) answered.push(`${method} ${template}`);
      if (answer.status === 405) allowed.set(template, String(answer.headers.allow));
    }
  }
  return answered;
}

describe("robustness: the fuzzed route list is every route the service mounts", () => {
  let service: Awaited<ReturnType<typeof fullService>>;

  before(async () => {
    service = await fullService();
  });
  after(() => service?.built.close());

  it("lists each mounted route (express, fast paths, CCIP gateway) unless left out with a reason, and no other", async () => {
    const listed = ROUTES.map((route) => `${route.method} ${route.template}`);
    const leftOut = Object.keys(NOT_FUZZED);
    expect(
      ROUTES.map((route) => route.name),
      "each named as METHOD /template",
    ).to.deep.equal(listed);
    expect(new Set(listed).size, "no route listed twice").to.equal(listed.length);
    // The express app's routes are read from its router; the node:http handlers in front of it (fast paths, CCIP
    // gateway) declare none, so every method is tried on every path either knows and each answer tells.
    const expressRoutes = mountedRoutes(createExpressApp(service.built.deps));
    const templates = [...new Set([...expressRoutes, ...listed, ...leftOut].map((route) => route.split(" ")[1]!))];
    const allowed = new Map<string, string>();
    const mounted = [...new Set([...expressRoutes, ...(await answeredRoutes(service.handler, templates, allowed))])];
    expect(mounted.length, "routes found").to.be.greaterThan(25);
    const unlisted = mounted.filter((route) => !listed.includes(route) && !leftOut.includes(route));
    expect(unlisted, "mounted, but neither in ROUTES nor in NOT_FUZZED (test/robustness/lib/routes.ts)").to.deep.equal(
      [],
    );
    expect(
      listed.filter((route) => !mounted.includes(route)),
      "in ROUTES, but not mounted",
    ).to.deep.equal([]);
    expect(
      leftOut.filter((route) => !mounted.includes(route) || listed.includes(route)),
      "in NOT_FUZZED, but not mounted or fuzzed after all",
    ).to.deep.equal([]);
    // A 405's Allow names exactly the methods mounted at its path (HEAD with GET; OPTIONS: every path's preflight).
    expect(allowed.size, "paths answered 405 for another method").to.be.greaterThan(20);
    for (const [template, allow] of allowed) {
      const methods = mounted.filter((route) => route.split(" ")[1] === template).map((route) => route.split(" ")[0]!);
      const expected = [...METHODS, "HEAD"].filter(
        (m) => methods.includes(m) || (m === "HEAD" && methods.includes("GET")),
      );
      expect(allow.split(", ").sort(), `Allow of ${template}`).to.deep.equal([...expected, "OPTIONS"].sort());
    }
  });
});
