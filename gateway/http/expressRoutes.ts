import { type RequestHandler, Router } from "express";
import type { AppTokens } from "../auth/appTokens";
import { type AdmitApp, bearerAuth, principalOf } from "./bearer";
import { closedSignal } from "./closedSignal";
import { deadlineOf } from "./requestTimeout";
import { jsonBody } from "./jsonBody";
import { type Route, headerOf } from "./route";

/** What mounting routes on express takes of the app: its tokens and BODY_LIMIT. */
export interface RouteMountSettings {
  readonly tokens: AppTokens;
  readonly admitApp: AdmitApp;
  readonly bodyLimit: string;
}

/**
 * An express router serving `routes` from their one definition (http/route.ts), in order: the bearer token, the
 * route's `admit`, its JSON body (http/jsonBody.ts), then its handler with the body and query validated. The app's base
 * middleware (app.ts) gives each request its id, access line, metrics, headers and deadline, and its problem handler
 * answers what any step throws; the fast path (http/fastPath.ts) runs the same functions for the routes marked fast.
 */
export function routerOf(routes: readonly Route[], settings: RouteMountSettings): Router {
  const router = Router();
  for (const route of routes) {
    const steps: RequestHandler[] = [bearerAuth(settings.tokens, route.auth === "required", settings.admitApp)];
    const { admit, body } = route;
    if (admit) steps.push((req, res, next) => void admit(req, principalOf(res)).then(() => next(), next));
    if (body)
      steps.push(...jsonBody({ limit: settings.bodyLimit, mediaTypes: body.mediaTypes, namedAs: body.namedAs }));
    steps.push(handler(route));
    if (route.method === "GET") router.get(route.path, ...steps);
    else router.post(route.path, ...steps);
  }
  return router;
}

/** The route's handler on express: its request read as declared, its answer sent with res.json. */
const handler =
  (route: Route): RequestHandler =>
  async (req, res) => {
    if (route.headers) res.set(route.headers);
    const answer = await route.handle({
      body: route.body && route.body.schema.parse(req.body),
      query: route.query && route.query.parse(req.query),
      params: req.params as Record<string, string>,
      principal: principalOf(res),
      get deadline() {
        return deadlineOf(res);
      },
      header: (name) => headerOf(req, name),
      closed: () => closedSignal(res),
    });
    res.status(answer.status);
    if (answer.headers) res.set(answer.headers);
    res.json(answer.body);
  };
