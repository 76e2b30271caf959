import { expect } from "chai";
import request from "supertest";
import { TEST_NOW } from "../../helpers/testApp";
import { createConsoleLink } from "../../../gateway/console/service/consoleLinks";
import { CONSOLE_TOKEN, consoleTestApp, logIn, postAction } from "./consoleSession";

/** Every console page and action an outsider might try. */
const PAGES = [
  "/console",
  "/console/apps",
  "/console/apps/app_x",
  "/console/chains/localhost",
  "/console/requests",
  "/console/requests/tx_x",
  "/console/webhooks",
  "/console/assets/console.js",
  "/console/assets/uPlot.iife.min.js",
  "/console/nothing-here",
];
const ACTIONS = [
  "maintenance-on",
  "maintenance-off",
  "app-disable",
  "app-enable",
  "app-budget",
  "webhook-enable",
  "redeliver",
  "cancel",
];

describe("Operator console: who gets in (issue 38)", () => {
  const configured = { console: { token: CONSOLE_TOKEN } };

  it("does not exist unless configured: every console URL and action is the service's 404, with the right token too", async () => {
    const built = await consoleTestApp();
    try {
      for (const path of [...PAGES, "/console/login", "/console/open?link=x"]) {
        expect((await request(built.app).get(path)).status, path).to.equal(404);
      }
      const login = await request(built.app).post("/console/login").type("form").send({ token: CONSOLE_TOKEN });
      expect(login.status).to.equal(404);
      for (const action of ACTIONS) {
        const res = await request(built.app).post(`/console/actions/${action}`).type("form").send({ target: "x" });
        expect(res.status, action).to.equal(404);
      }
    } finally {
      built.close();
    }
  });

  it("an outsider without a session gets the login form (401) for every page and a 401 for every action; nothing changes", async () => {
    const built = await consoleTestApp(configured);
    try {
      const { app } = await built.appWithToken("victim app");
      for (const path of PAGES) {
        const res = await request(built.app).get(path);
        expect(res.status, path).to.equal(401);
        expect(res.text, path).to.include('id="token-login"').and.not.include("victim app");
      }
      for (const action of ACTIONS) {
        const res = await request(built.app)
          .post(`/console/actions/${action}`)
          .type("form")
          .send({ target: app.id, confirm: "yes", csrf: "guess", budget: "1" });
        expect(res.status, action).to.equal(401);
      }
      const repos = await built.repositories;
      expect((await repos.apps.findById(app.id))!.status).to.equal("active");
      expect((await repos.settings.getMaintenance()).enabled).to.equal(false);
      expect(await repos.console.recentActions(10)).to.deep.equal([]);
    } finally {
      built.close();
    }
  });

  it("an app's bearer token opens nothing: not as a header, not posted as the console token", async () => {
    const built = await consoleTestApp(configured);
    try {
      const { app, token } = await built.appWithToken("app with a token");
      expect((await request(built.app).get("/console").auth(token, { type: "bearer" })).status).to.equal(401);
      const disable = await request(built.app)
        .post("/console/actions/app-disable")
        .auth(token, { type: "bearer" })
        .type("form")
        .send({ target: app.id, confirm: "yes" });
      expect(disable.status).to.equal(401);
      const login = await logIn(built, { token });
      expect(login.res.status).to.equal(401);
      expect(login.cookie).to.equal("");
      expect((await (await built.repositories).apps.findById(app.id))!.status).to.equal("active");
    } finally {
      built.close();
    }
  });

  it("a wrong console token opens nothing; the right one opens an HttpOnly, SameSite=Strict session on /console", async () => {
    const built = await consoleTestApp(configured);
    try {
      expect((await logIn(built, { token: `${CONSOLE_TOKEN}x` })).res.status).to.equal(401);
      const { res } = await logIn(built);
      expect(res.status).to.equal(303);
      expect(res.headers.location).to.equal("/console");
      const cookie = (res.headers["set-cookie"] as unknown as string[])[0]!;
      expect(cookie).to.match(/^idwallet_console=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800$/);
      // Over https (a trusted proxy says so) the cookie is Secure too.
      const proxied = await consoleTestApp({ ...configured, trustProxy: "1" });
      try {
        const secure = await request(proxied.app)
          .post("/console/login")
          .set("X-Forwarded-Proto", "https")
          .type("form")
          .send({ token: CONSOLE_TOKEN });
        expect((secure.headers["set-cookie"] as unknown as string[])[0]).to.match(/; Secure$/);
      } finally {
        proxied.close();
      }
    } finally {
      built.close();
    }
  });

  it("a cross-site form post does nothing: another site's Origin, Sec-Fetch-Site cross-site, no or another session's CSRF token", async () => {
    const built = await consoleTestApp(configured);
    try {
      const { app } = await built.appWithToken("target app");
      const session = await logIn(built);
      const other = await logIn(built);
      const attempts: [string, Record<string, string>, Record<string, string>][] = [
        ["another site's Origin", {}, { Origin: "https://evil.example" }],
        ["an Origin of null (a sandboxed frame)", {}, { Origin: "null" }],
        ["Sec-Fetch-Site cross-site", {}, { "Sec-Fetch-Site": "cross-site" }],
        ["Sec-Fetch-Site same-site", {}, { "Sec-Fetch-Site": "same-site" }],
        ["no CSRF token", { csrf: "" }, {}],
        ["a guessed CSRF token", { csrf: "x".repeat(43) }, {}],
        ["another session's CSRF token", { csrf: other.csrf }, {}],
      ];
      for (const [attack, fields, headers] of attempts) {
        const res = await postAction(built, session, "app-disable", { target: app.id, ...fields }, headers);
        expect(res.status, attack).to.equal(403);
      }
      // A login posted from another site (login CSRF) opens nothing either.
      const forged = await request(built.app)
        .post("/console/login")
        .set("Origin", "https://evil.example")
        .type("form")
        .send({ token: CONSOLE_TOKEN });
      expect(forged.status).to.equal(403);
      expect(forged.headers["set-cookie"]).to.equal(undefined);
      expect((await (await built.repositories).apps.findById(app.id))!.status).to.equal("active");
      // The session's own same-origin form does it: the refusals above were not a broken action.
      const own = await postAction(
        built,
        session,
        "app-disable",
        { target: app.id },
        { "Sec-Fetch-Site": "same-origin" },
      );
      expect(own.status).to.equal(200);
      expect((await (await built.repositories).apps.findById(app.id))!.status).to.equal("disabled");
    } finally {
      built.close();
    }
  });

  it("an expired session is refused, and so is a logged-out one", async () => {
    const built = await consoleTestApp(configured);
    try {
      const session = await logIn(built);
      expect((await request(built.app).get("/console").set("Cookie", session.cookie)).status).to.equal(200);
      built.setClock(new Date(TEST_NOW.getTime() + 8 * 3600 * 1000 + 1000));
      expect((await request(built.app).get("/console").set("Cookie", session.cookie)).status).to.equal(401);
      built.setClock(TEST_NOW);
      const next = await logIn(built);
      const out = await request(built.app)
        .post("/console/logout")
        .set("Cookie", next.cookie)
        .type("form")
        .send({ csrf: next.csrf });
      expect(out.status).to.equal(200);
      expect((await request(built.app).get("/console").set("Cookie", next.cookie)).status).to.equal(401);
    } finally {
      built.close();
    }
  });

  it("a one-time link opens one session, once; a used or expired link is refused", async () => {
    const built = await consoleTestApp({ console: { enabled: true } });
    try {
      const repos = await built.repositories;
      const link = await createConsoleLink(repos.console, () => TEST_NOW, 900, "alice");
      const secret = new URL(link.path, "http://x").searchParams.get("link")!;
      // The link's page only offers the login: fetching it (a link preview) uses nothing up.
      const opened = await request(built.app).get(link.path);
      expect(opened.status).to.equal(401);
      expect(opened.text).to.include(`name="link" value="${secret}"`);
      const first = await logIn(built, { link: secret });
      expect(first.res.status).to.equal(303);
      expect((await request(built.app).get("/console").set("Cookie", first.cookie)).text).to.include("alice");
      expect((await logIn(built, { link: secret })).res.status).to.equal(401);

      const late = await createConsoleLink(repos.console, () => TEST_NOW, 900, "bob");
      built.setClock(new Date(TEST_NOW.getTime() + 901_000));
      const lateSecret = new URL(late.path, "http://x").searchParams.get("link")!;
      expect((await logIn(built, { link: lateSecret })).res.status).to.equal(401);
      // Without CONSOLE_TOKEN set, no token logs in.
      expect((await logIn(built, { token: CONSOLE_TOKEN })).res.status).to.equal(401);
    } finally {
      built.close();
    }
  });

  it("stays reachable in maintenance mode, while the API answers 503", async () => {
    const built = await consoleTestApp({ ...configured, maintenance: { enabled: true } });
    try {
      const session = await logIn(built);
      expect((await request(built.app).get("/console").set("Cookie", session.cookie)).status).to.equal(200);
      expect((await request(built.app).post("/v1/resolver").send({ userIds: "github:a" })).status).to.equal(503);
    } finally {
      built.close();
    }
  });
});
