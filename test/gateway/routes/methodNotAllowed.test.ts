import { expect } from "chai";
import request from "supertest";
import { createAuthApp } from "../../../gateway/app";
import { buildTestApp } from "../../helpers/testApp";

/** The 405 problem at `path` for `method`, naming the methods the path takes. */
const notAllowed = (res: request.Response, method: string, path: string, send: string) => ({
  type: "about:blank",
  title: "Method not allowed",
  status: 405,
  code: "METHOD_NOT_ALLOWED",
  detail: `${path} does not take ${method}: send ${send}`,
  instance: path,
  requestId: res.headers["x-request-id"],
});

describe("API: a method a route's path does not take is 405 with Allow; a path no route has stays 404", () => {
  it("GET, PUT, DELETE on POST routes, POST on GET routes: 405 METHOD_NOT_ALLOWED naming the methods taken", async () => {
    const { app, close, appWithToken } = buildTestApp();
    const { token } = await appWithToken();
    const cases: [string, string, string, string][] = [
      ["GET", "/v1/kernel/sign", "POST", "POST, OPTIONS"],
      ["GET", "/v1/auth", "POST", "POST, OPTIONS"],
      ["GET", "/functions/v1/signInWithOTP", "POST", "POST, OPTIONS"],
      ["DELETE", "/v1/resolver", "POST", "POST, OPTIONS"],
      ["PUT", "/v1/kernel/tx", "GET or POST", "GET, HEAD, POST, OPTIONS"],
      ["POST", "/v1/kernel/tx/00000000-0000-4000-8000-000000000000", "GET", "GET, HEAD, OPTIONS"],
      ["GET", "/v1/localhost/account", "POST", "POST, OPTIONS"],
      ["PATCH", "/v1/webhooks", "GET or POST", "GET, HEAD, POST, OPTIONS"],
      ["GET", "/v1/webhooks/wh_1", "DELETE", "DELETE, OPTIONS"],
      ["POST", "/v1/networks", "GET", "GET, HEAD, OPTIONS"],
      ["POST", "/health", "GET", "GET, HEAD, OPTIONS"],
    ];
    for (const [method, path, send, allow] of cases) {
      // With the app's token or without: the path decides, before any route's checks.
      const res = await request(app)[method.toLowerCase() as "get"](path).set("Authorization", `Bearer ${token}`);
      expect([res.status, res.body], `${method} ${path}`).to.deep.equal([405, notAllowed(res, method, path, send)]);
      expect(res.headers.allow, `${method} ${path}`).to.equal(allow);
    }
    const head = await request(app).head("/v1/kernel/sign");
    expect([head.status, head.headers.allow]).to.deep.equal([405, "POST, OPTIONS"]);
    close();
  });

  it("a path no route has, whatever the method, is still 404 NOT_FOUND", async () => {
    const { app, close } = buildTestApp();
    for (const [method, path] of [
      ["get", "/v1/nothing"],
      ["post", "/v1/kernel/nothing"],
      ["get", "/v1/kernel/tx/a/b"],
      ["delete", "/"],
    ] as const) {
      const res = await request(app)[method](path);
      expect([res.status, res.body.code, res.headers.allow], `${method} ${path}`).to.deep.equal([
        404,
        "NOT_FOUND",
        undefined,
      ]);
    }
    close();
  });

  it("an app serving some routes only (the auth server on AUTH_PORT) names its own routes, no others", async () => {
    const { deps, close } = buildTestApp();
    const authApp = createAuthApp(deps);
    const res = await request(authApp).get("/functions/v1/verifyOTP");
    expect([res.status, res.headers.allow]).to.deep.equal([405, "POST, OPTIONS"]);
    // The API's routes are not this app's: a 404 here, not a 405 naming methods it would not serve.
    expect((await request(authApp).put("/v1/kernel/tx")).status).to.equal(404);
    close();
  });
});
