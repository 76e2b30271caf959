import { expect } from "chai";
import express from "express";
import request from "supertest";
import BetterSqlite3 from "better-sqlite3";
import { makeError } from "ethers";
import { z } from "zod";
import { ApiError } from "../../../gateway/errors/apiError";
import { problemHandler, toApiError } from "../../../gateway/http/problemHandler";

/** A bare app with one throwing route and the real error middleware. */
function appThrowing(error: unknown) {
  const app = express();
  app.get("/boom", () => {
    throw error;
  });
  app.use(problemHandler("1mb"));
  return app;
}

describe("problemHandler", () => {
  it("answers an unknown error with a bare 500 that leaks nothing", async () => {
    const res = await request(appThrowing(new Error("SQLITE_CORRUPT at /secret/path")))
      .get("/boom")
      .expect(500);
    expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Internal server error",
      status: 500,
      code: "INTERNAL",
      instance: "/boom",
    });
    expect(res.text).to.not.include("SQLITE");
  });

  it("maps an ApiError with its status, code, extensions and headers", async () => {
    const error = new ApiError(
      429,
      "RATE_LIMITED",
      "Too many requests",
      "Slow down",
      { limit: 5 },
      { "Retry-After": "7" },
    );
    const res = await request(appThrowing(error)).get("/boom").expect(429);
    expect(res.headers["retry-after"]).to.equal("7");
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Too many requests",
      status: 429,
      code: "RATE_LIMITED",
      detail: "Slow down",
      limit: 5,
      instance: "/boom",
    });
  });

  it("maps a zod error to 400 INVALID_REQUEST with JSON-pointer paths", async () => {
    const parsed = z.object({ a: z.object({ "b/c": z.string() }) }).safeParse({ a: { "b/c": 1 } });
    const res = await request(appThrowing(parsed.error)).get("/boom").expect(400);
    expect(res.body.code).to.equal("INVALID_REQUEST");
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors[0].pointer).to.equal("/a/b~1c");
  });

  it("maps a chain RPC timeout to 504 and an unreachable RPC to 502, without internals", async () => {
    const timeout = makeError("request timeout", "TIMEOUT", { operation: "eth_call", reason: "timeout" });
    const down = makeError("connect ECONNREFUSED 10.0.0.5:8545", "NETWORK_ERROR", { event: "x" });
    const slow = await request(appThrowing(timeout)).get("/boom").expect(504);
    expect(slow.body).to.include({ code: "RPC_TIMEOUT", status: 504 });
    const unreachable = await request(appThrowing(down)).get("/boom").expect(502);
    expect(unreachable.body).to.include({ code: "RPC_UNAVAILABLE", status: 502 });
    expect(unreachable.text).to.not.include("10.0.0.5");
  });

  it("answers storage that cannot take the request (read-only, full, I/O, locked, unopenable) with 503 STORAGE_UNAVAILABLE and Retry-After", async () => {
    const codes = [
      "SQLITE_READONLY",
      "SQLITE_READONLY_DBMOVED",
      "SQLITE_FULL",
      "SQLITE_IOERR",
      "SQLITE_IOERR_WRITE",
      "SQLITE_IOERR_FSYNC",
      "SQLITE_BUSY",
      "SQLITE_BUSY_TIMEOUT",
      "SQLITE_CANTOPEN",
    ];
    for (const code of codes) {
      const error = new BetterSqlite3.SqliteError(`${code} at /var/lib/idwallet/idwallet.sqlite`, code);
      const res = await request(appThrowing(error)).get("/boom").expect(503);
      expect(res.headers["retry-after"], code).to.equal("5");
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
      expect(res.body, code).to.deep.equal({
        type: "about:blank",
        title: "Storage unavailable",
        status: 503,
        code: "STORAGE_UNAVAILABLE",
        detail: "The service could not read or write its storage; try again later",
        instance: "/boom",
      });
      expect(res.text).to.not.include("idwallet.sqlite");
    }
  });

  it("keeps other SQLite errors (a broken statement or constraint, corruption) a bare 500", () => {
    for (const code of ["SQLITE_ERROR", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CORRUPT", "SQLITE_MISMATCH"]) {
      expect(toApiError(new BetterSqlite3.SqliteError("x", code), "1mb"), code).to.equal(undefined);
    }
    // Only better-sqlite3's own errors: a look-alike is not trusted.
    expect(toApiError(Object.assign(new Error("x"), { code: "SQLITE_FULL" }), "1mb")).to.equal(undefined);
  });
});
