import express, { type Request, type Response, type Router } from "express";
import { z } from "zod";
import type { ConsoleSettings } from "../../config/consoleSettings";
import type { ConsoleDeps } from "../service/consoleDeps";
import {
  appPageData,
  appSummaries,
  failingEndpoints,
  overview,
  requestLife,
  servedChains,
} from "../service/consoleViews";
import { chainPageData } from "../service/chainStatus";
import { TxStatusFilter, searchFor } from "./requestSearch";
import {
  type OpenSession,
  carriesCsrf,
  clearSessionCookie,
  crossSite,
  loginLabel,
  openSession,
  sessionOf,
} from "./consoleAuth";
import { serveConsoleAsset } from "./consoleAssets";
import { html, renderPage } from "./consoleMarkup";
import { takeAction } from "./consoleActions";
import { overviewBody } from "./overviewPage";
import { chainBody, requestTable } from "./chainPage";
import { appBody, appsBody } from "./appPages";
import { requestBody, requestSearchForm } from "./requestPage";
import { webhooksBody } from "./webhooksPage";
import { loginBody } from "./loginPage";

/** The session a request was let in with (set by the router's gate). */
const sessionIn = (res: Response): OpenSession => res.locals.consoleSession as OpenSession;

const sendPage = (res: Response, status: number, body: string): void => void res.status(status).type("html").send(body);

const Search = z.object({ q: z.string().trim().max(200).optional(), status: TxStatusFilter.optional() });

/**
 * The operator console (issue 38) at /console: the login (a CONSOLE_TOKEN, or a one-time link), then the views and
 * the actions, each behind an open session; every post behind the session's CSRF token and refused from another site.
 * Mounted only when the operator configured it (app.ts): otherwise every /console URL is the service's 404.
 */
export function consoleRouter(deps: ConsoleDeps, settings: ConsoleSettings): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 });
  const login = (res: Response, status: number, message?: string, link?: string) =>
    sendPage(res, status, renderPage("Log in", { session: undefined }, loginBody(message, link)));

  router.use("/console", (_req, res, next) => {
    // Never cached, never readable from another origin (the API's CORS answer is not the console's).
    res.removeHeader("Access-Control-Allow-Origin");
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  router.post("/console/login", form, async (req, res) => {
    if (crossSite(req)) return login(res, 403, "Refused: the form was posted from another site.");
    const label = await loginLabel((req.body ?? {}) as Record<string, unknown>, deps, settings);
    if (label === undefined) return login(res, 401, "Not accepted: a wrong token, or a link used or expired.");
    await openSession(req, res, deps, settings, label);
    res.redirect(303, "/console");
  });

  // Everything else needs an open session; without one a page is the login form (401), a post is refused.
  router.use("/console", form, async (req, res, next) => {
    const session = await sessionOf(req, deps, settings);
    if (!session) {
      if (req.method !== "GET" && req.method !== "HEAD")
        return void res.status(401).type("text/plain").send("Log in first.");
      const link = req.path === "/open" && typeof req.query.link === "string" ? req.query.link : undefined;
      return login(res, 401, undefined, link);
    }
    if (req.method === "POST" && (crossSite(req) || !carriesCsrf(req, session))) {
      return void res.status(403).type("text/plain").send("Refused: not a form of this console session.");
    }
    res.locals.consoleSession = session;
    next();
  });

  const page = (res: Response, title: string, body: ReturnType<typeof html>, charts = false, status = 200) =>
    sendPage(res, status, renderPage(title, { session: sessionIn(res), charts }, body));
  const notFound = (res: Response, what: string) => page(res, "Not found", html`<p>${what}</p>`, false, 404);

  router.get("/console/open", (_req, res) => res.redirect(303, "/console"));
  router.post("/console/logout", async (_req, res) => {
    await deps.sessions.closeSession(sessionIn(res).idHash);
    clearSessionCookie(res);
    login(res, 200, "Logged out.");
  });
  router.get("/console/assets/:name", serveConsoleAsset);
  router.get("/console", async (_req, res) =>
    page(res, "Overview", overviewBody(await overview(deps.views), sessionIn(res))),
  );
  router.get("/console/chains/:chain", async (req, res) => {
    const chain = String(req.params.chain);
    if (!servedChains(deps.views).includes(chain)) return notFound(res, `No served chain ${chain}.`);
    page(res, `Chain ${chain}`, chainBody(await chainPageData(deps.views, chain)), true);
  });
  router.get("/console/apps", async (_req, res) => page(res, "Apps", appsBody(await appSummaries(deps.views))));
  router.get("/console/apps/:id", async (req, res) => {
    const query = Search.safeParse(req.query);
    const search = query.success ? query.data : {};
    const data = await appPageData(deps.views, String(req.params.id), await searchFor(deps.views, search));
    if (!data) return notFound(res, `No app ${String(req.params.id)}.`);
    page(res, `App ${data.summary.app.name}`, appBody(data, search, sessionIn(res)), true);
  });
  router.get("/console/requests", async (req, res) => {
    const query = Search.safeParse(req.query);
    const search = query.success ? query.data : {};
    const found = await deps.views.reads.requests({ ...(await searchFor(deps.views, search)), limit: 50 });
    page(res, "Requests", html`${requestSearchForm(search)} ${requestTable(found)}`);
  });
  router.get("/console/requests/:id", async (req, res) => {
    const life = await requestLife(deps.views, String(req.params.id));
    if (!life) return notFound(res, `No request ${String(req.params.id)}.`);
    page(res, "Request", requestBody(life, sessionIn(res)));
  });
  router.get("/console/webhooks", async (_req, res) =>
    page(res, "Webhooks", webhooksBody(await failingEndpoints(deps.views), sessionIn(res))),
  );
  router.post("/console/actions/:action", async (req: Request, res) => {
    const step = await takeAction(String(req.params.action), req.body ?? {}, sessionIn(res), deps.actions);
    if (!step) return notFound(res, "No such action.");
    if (step.kind === "confirm") return page(res, "Confirm", step.body);
    const status = step.kind === "done" ? 200 : step.status;
    const css = step.kind === "done" ? "ok" : "bad";
    page(
      res,
      step.kind === "done" ? "Done" : "Not done",
      html`<p class=${css} id="result">${step.message}</p>
        <p><a href=${step.back}>Back</a></p>`,
      false,
      status,
    );
  });
  router.use("/console", (_req, res) => notFound(res, "No such page."));
  return router;
}
