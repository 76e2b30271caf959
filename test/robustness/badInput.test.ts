import { expect } from "chai";
import fc from "fast-check";
import { OAUTH_ERRORS, Tally, judge, knownErrorCodes } from "./lib/answerRules";
import {
  badAuthorization,
  contentType,
  extraHeaders,
  idempotencyKey,
  malformedEscape,
  pathSegment,
  queryString,
  rawBody,
  rawSegment,
} from "./lib/badInputs";
import { providerProof } from "./lib/proofs";
import { type RawAnswer, type RawRequest, sendRaw } from "./lib/rawHttp";
import { type Fixture, ROUTES, type Route, pathOf } from "./lib/routes";
import { bySoak } from "./soak";
import { type TestService, startTestService } from "./lib/testService";

/** Generated inputs per route and kind of input. */
const RUNS = bySoak(40, 1500);
/**
 * The service's deadline for a request here is REQUEST_TIMEOUT_MS = 3 s (a REQUEST_TIMEOUT 503 fails the rules);
 * an answer that has not arrived 3 s after that is a hang.
 */
const REQUEST_TIMEOUT_MS = 3000;
const DEADLINE_MS = REQUEST_TIMEOUT_MS + 3000;

describe("robustness: bad input against every endpoint gets a 4xx problem, never a 5xx or a hang", function () {
  this.timeout(bySoak(120_000, 4 * 3_600_000));
  const tally = new Tally();
  const known = knownErrorCodes();
  let service: TestService;
  let fixture: Fixture;

  before(async () => {
    service = await startTestService({ settings: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
    const phoneToken = await service.userTokens.issue("tel:14155550123");
    fixture = {
      seeded: service.seeded,
      proofs: [
        await providerProof("alice"),
        await providerProof("bob"),
        await providerProof("alice", { expiresIn: -60 }),
        await providerProof("alice", { secret: "another-secret-of-at-least-32-characters" }),
        phoneToken.token,
        service.seeded.token,
      ],
    };
  });

  after(async () => {
    for (const line of tally.lines()) console.log(line);
    const oauth = OAUTH_ERRORS.map((error) => error.toUpperCase());
    const answered = [...tally.codes()].filter((code) => !known.has(code) && !oauth.includes(code)).sort();
    console.log(`bad input: codes answered that the error-code module lacks: ${answered.join(", ") || "none"}`);
    await service?.close();
  });

  /** Sends one input, checks the answer against the rules (throwing on a violation), counts it. */
  async function exchange(route: Route, request: RawRequest): Promise<RawAnswer> {
    const answer = await sendRaw(service.port, request, DEADLINE_MS);
    let verdict;
    try {
      verdict = judge(route.rules, known, request, answer);
    } catch (error) {
      throw new Error(`${route.name}: ${(error as Error).message}\n  request: ${describeRequest(request)}`);
    }
    tally.record(route.name, verdict, answer.status, answer.ms, codeOf(answer));
    return answer;
  }

  /** The credentials a well-behaved client of `route` sends. */
  const validAuthorization = (route: Route): string | undefined =>
    route.auth === "bearer" || route.auth === "optional"
      ? `Bearer ${fixture.seeded.token}`
      : route.auth === "client"
        ? `Basic ${Buffer.from(`${fixture.seeded.clientId}:${fixture.seeded.clientSecret}`).toString("base64")}`
        : undefined;
  const defaultPath = (route: Route) => pathOf(route, route.params(fixture));
  const headers = (entries: [string, string | undefined][]): [string, string][] =>
    entries.filter((entry): entry is [string, string] => entry[1] !== undefined);
  const encode = (route: Route, body: Record<string, unknown>): { type: string; text: string } =>
    route.encoding === "form"
      ? {
          type: "application/x-www-form-urlencoded",
          text: new URLSearchParams(
            Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
          ).toString(),
        }
      : { type: "application/json", text: JSON.stringify(body) };

  it("reads the known problem codes from the error-code module", () => {
    expect(known.size).to.be.greaterThan(40);
    for (const code of ["INVALID_REQUEST", "MALFORMED_JSON", "PAYLOAD_TOO_LARGE", "NOT_FOUND", "RPC_UNAVAILABLE"]) {
      expect(known.has(code), code).to.be.true;
    }
  });

  describe("raw bodies: malformed JSON, random bytes, any text or JSON, in any content type and charset", () => {
    for (const route of ROUTES) {
      it(route.name, async () => {
        await fc.assert(
          fc.asyncProperty(
            rawBody,
            contentType,
            fc.oneof(fc.constant(validAuthorization(route)), fc.constant(undefined), badAuthorization),
            async (body, type, authorization) => {
              await exchange(route, {
                method: route.method,
                target: defaultPath(route),
                headers: headers([
                  ["Content-Type", type],
                  ["Authorization", authorization],
                ]),
                body,
              });
            },
          ),
          { numRuns: RUNS },
        );
      });
    }
  });

  describe("valid-shaped requests with random field values", () => {
    for (const route of ROUTES) {
      it(route.name, async () => {
        const body = route.body?.(fixture) ?? fc.constant(undefined);
        const query = route.query ?? fc.constant({});
        const params = route.shapedParams ?? fc.constant(route.params(fixture));
        const key = fc.option(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), { nil: undefined });
        await fc.assert(
          fc.asyncProperty(body, query, params, key, async (fields, search, pathParams, idempotency) => {
            const encoded = fields && encode(route, fields);
            const queryText = new URLSearchParams(search).toString();
            await exchange(route, {
              method: route.method,
              target: `${pathOf(route, pathParams)}${queryText ? `?${queryText}` : ""}`,
              headers: headers([
                ["Content-Type", encoded?.type],
                ["Authorization", route.auth === "client" ? undefined : validAuthorization(route)],
                ["Idempotency-Key", idempotency],
              ]),
              body: encoded?.text,
            });
          }),
          { numRuns: RUNS },
        );
      });
    }
  });

  describe("random methods and headers: Authorization and Idempotency-Key garbage, odd headers, huge headers", () => {
    for (const route of ROUTES) {
      it(route.name, async () => {
        const body = route.body?.(fixture) ?? fc.constant(undefined);
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(
              route.method,
              route.method,
              route.method,
              "GET",
              "POST",
              "PUT",
              "DELETE",
              "OPTIONS",
              "HEAD",
            ),
            fc.oneof(fc.constant(validAuthorization(route)), badAuthorization, fc.constant(undefined)),
            fc.option(idempotencyKey, { nil: undefined }),
            extraHeaders,
            fc.option(fc.integer({ min: 1000, max: 14_000 }), { nil: undefined, freq: 4 }),
            body,
            async (method, authorization, key, extra, padding, fields) => {
              const encoded = fields && encode(route, fields);
              await exchange(route, {
                method,
                target: defaultPath(route),
                headers: headers([
                  ["Content-Type", encoded?.type],
                  ["Authorization", authorization],
                  ["Idempotency-Key", key],
                  ["X-Padding", padding === undefined ? undefined : "p".repeat(padding)],
                  ...extra,
                ]),
                body: encoded?.text,
              });
            },
          ),
          { numRuns: RUNS },
        );
      });
    }
  });

  describe("random path segments (%-encoding, `..`, unicode, malformed escapes) and query strings", () => {
    const segment = (fallback: string) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(fallback) },
        { weight: 3, arbitrary: pathSegment },
        { weight: 1, arbitrary: malformedEscape },
        { weight: 1, arbitrary: rawSegment },
      );
    for (const route of ROUTES) {
      it(route.name, async () => {
        const defaults = route.params(fixture);
        const params = fc.record(Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, segment(v)])));
        await fc.assert(
          fc.asyncProperty(
            params,
            fc.constantFrom("", "", "/", "//", "/..", "/x", ";x", "%2F"),
            fc.option(queryString, { nil: undefined }),
            fc.oneof(fc.constant(validAuthorization(route)), fc.constant(undefined)),
            async (pathParams, suffix, query, authorization) => {
              await exchange(route, {
                method: route.method,
                target: `${pathOf(route, pathParams)}${suffix}${query === undefined ? "" : `?${query}`}`,
                headers: headers([
                  ["Authorization", authorization],
                  ["Content-Type", route.method === "POST" ? "application/json" : undefined],
                ]),
                body: route.method === "POST" ? "{}" : undefined,
              });
            },
          ),
          { numRuns: RUNS },
        );
      });
    }
  });

  describe("bodies at the size limit and one byte above it (BODY_LIMIT; the CCIP gateway's 64 KiB)", () => {
    /** A body of exactly `size` bytes in the route's encoding. */
    const sized = (route: Route, size: number): { type: string; text: string } =>
      route.encoding === "form"
        ? { type: "application/x-www-form-urlencoded", text: `pad=${"x".repeat(size - 4)}` }
        : { type: "application/json", text: `{"pad":"${"x".repeat(size - 10)}"}` };
    for (const route of ROUTES.filter((r) => r.method === "POST")) {
      it(`${route.name}: ${route.bodyLimit.toLocaleString("en-US")} bytes are read, one more is 413`, async () => {
        for (const size of [route.bodyLimit, route.bodyLimit + 1]) {
          const body = sized(route, size);
          expect(Buffer.byteLength(body.text)).to.equal(size);
          const answer = await exchange(route, {
            method: "POST",
            target: defaultPath(route),
            headers: [
              ["Content-Type", body.type],
              ...(route.auth === "bearer" ? [["Authorization", validAuthorization(route)!] as [string, string]] : []),
            ],
            body: body.text,
          });
          if (size > route.bodyLimit) expect([answer.status, codeOf(answer)]).to.deep.equal([413, "PAYLOAD_TOO_LARGE"]);
          else expect(answer.status, `${size} bytes`).to.not.equal(413);
        }
      });
    }
  });

  describe("deeply nested JSON (thousands of levels), as the body and as each field's value", () => {
    const nested = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;
    for (const route of ROUTES.filter((r) => r.encoding === "json")) {
      it(route.name, async () => {
        // The route's own fields, from one generated body.
        const [sample] = fc.sample(route.body!(fixture), { numRuns: 1, seed: 1 });
        const fields = ["userIds", ...Object.keys(sample ?? {})];
        for (const depth of [5_000, 50_000]) {
          for (const [open, close] of [
            ["[", "]"],
            ['{"a":', "}"],
          ] as const) {
            const value = nested(depth, open, close);
            for (const [name, text] of [["", value], ...fields.map((f) => [f, `{"${f}":${value}}`])]) {
              const answer = await exchange(route, {
                method: "POST",
                target: defaultPath(route),
                headers: [
                  ["Content-Type", "application/json"],
                  ...(route.auth === "bearer"
                    ? [["Authorization", validAuthorization(route)!] as [string, string]]
                    : []),
                ],
                body: text,
              });
              // A nested array is never a valid body; an object or a field the route may ignore (judged only).
              if (name === "" && open === "[") expect(answer.status, `depth ${depth}`).to.be.within(400, 499);
            }
          }
        }
      });
    }
  });

  it("reads a chain only for a valid request, and a dead RPC is then the upstream 502, answered at once", async () => {
    const sign = ROUTES.find((r) => r.name === "POST /v1/kernel/sign")!;
    const signed = await exchange(sign, {
      method: "POST",
      target: "/v1/kernel/sign",
      headers: [
        ["Content-Type", "application/json"],
        ["Authorization", validAuthorization(sign)!],
      ],
      // alice's own proof: a blank auth never yields a signature (test mode or not), so it reads no chain.
      body: JSON.stringify({
        userId: "acme:alice",
        hash: `0x${"ab".repeat(32)}`,
        auth: fixture.proofs[0],
        chain: "localhost",
      }),
    });
    const dust = ROUTES.find((r) => r.name === "GET /api/{address}")!;
    const portfolio = await exchange(dust, { method: "GET", target: defaultPath(dust) });
    for (const answer of [signed, portfolio]) {
      expect([answer.status, codeOf(answer)]).to.deep.equal([502, "RPC_UNAVAILABLE"]);
      expect(answer.ms).to.be.below(1000);
    }
  });

  it("answers a 15 KB header; node's own 431 refuses a header section over its 16 KiB limit", async () => {
    const route = ROUTES.find((r) => r.name === "GET /v1/networks")!;
    const small = await exchange(route, {
      method: "GET",
      target: "/v1/networks",
      headers: [["X-Big", "b".repeat(15_000)]],
    });
    expect(small.status).to.equal(200);
    const big = await exchange(route, {
      method: "GET",
      target: "/v1/networks",
      headers: [["X-Big", "b".repeat(17_000)]],
    });
    expect(big.status).to.equal(431);
  });

  describe("reported defects (skipped until fixed; see the report)", () => {
    // DEFECT: a path parameter with a malformed %-escape is a 500 INTERNAL (express's URIError, status 400, is not
    // mapped by gateway/http/problemHandler.ts toApiError). The CCIP gateway answers the same input 400.
    it("a malformed %-escape in a path parameter is a 400 problem", async () => {
      const { seeded } = fixture;
      const targets: [string, string][] = [
        ["GET /v1/kernel/tx/{id}", "/v1/kernel/tx/%zz"],
        ["GET /v1/base/tx/{id}", "/v1/base/tx/%E0%A4%A"],
        ["POST /v1/{chain}/accounts", "/v1/%/accounts"],
        ["POST /v1/{chain}/account/{address}/custom", `/v1/localhost/account/${seeded.safe}%zz/custom`],
        ["GET /v1/{chain}/account/{address}/tx/{txUuid}", `/v1/localhost/account/${seeded.safe}/tx/%`],
        ["GET /api/{address}", "/api/%zz"],
      ];
      for (const [name, target] of targets) {
        const route = ROUTES.find((r) => r.name === name)!;
        const answer = await sendRaw(
          service.port,
          {
            method: route.method,
            target,
            headers: [["Authorization", `Bearer ${seeded.token}`]],
            ...(route.method === "POST" ? { body: "{}" } : {}),
          },
          DEADLINE_MS,
        );
        expect([answer.status, codeOf(answer)], target).to.deep.equal([400, "INVALID_REQUEST"]);
      }
    });

    // DEFECT: Content-Encoding gzip/deflate/br on a body that does not inflate is a 500 INTERNAL (body-parser's zlib
    // error carries status 400 but no `type`, so toApiError does not map it).
    it("a body whose Content-Encoding does not match its bytes is a 4xx problem", async () => {
      for (const encoding of ["gzip", "deflate", "br"]) {
        for (const [target, type] of [
          ["/v1/resolver", "application/json"],
          ["/v1/auth", "application/x-www-form-urlencoded"],
          ["/functions/v1/signInWithOTP", "application/json"],
        ]) {
          const answer = await sendRaw(
            service.port,
            {
              method: "POST",
              target: target!,
              headers: [
                ["Content-Type", type!],
                ["Content-Encoding", encoding],
              ],
              body: '{"userIds":"github:alice"}',
            },
            DEADLINE_MS,
          );
          expect(answer.status, `${encoding} ${target}`).to.be.within(400, 499);
        }
      }
    });

    // DEFECT: POST /v1/auth answers a form that fails validation (a client_id over 200 characters, a repeated field)
    // or an unsupported charset with a problem that has no RFC 6749 `error` (docs/auth.md).
    it("POST /v1/auth answers every 400 with RFC 6749 error invalid_request", async () => {
      for (const [type, body] of [
        ["application/x-www-form-urlencoded", `client_id=${"a".repeat(201)}&client_secret=x`],
        ["application/x-www-form-urlencoded", "client_id=a&client_id=b&client_secret=x"],
        ["application/x-www-form-urlencoded; charset=utf-16", "client_id=a&client_secret=x"],
      ]) {
        const answer = await sendRaw(
          service.port,
          { method: "POST", target: "/v1/auth", headers: [["Content-Type", type!]], body },
          DEADLINE_MS,
        );
        const problem = JSON.parse(answer.body.toString("utf8"));
        expect([answer.status, problem.error], `${type} ${body!.slice(0, 60)}`).to.deep.equal([400, "invalid_request"]);
      }
    });

    // DEFECT: a client that declares a Content-Length and stops sending gets 503 REQUEST_TIMEOUT after
    // REQUEST_TIMEOUT_MS, a 5xx for a client-side fault (invariant 5); 408 (or a 400) is the client's answer.
    it("a body that stops short of its Content-Length is a 4xx, not a 503", async () => {
      const answer = await sendRaw(
        service.port,
        {
          method: "POST",
          target: "/v1/resolver",
          headers: [
            ["Content-Type", "application/json"],
            ["Content-Length", "100"],
          ],
          body: '{"userIds":',
        },
        DEADLINE_MS,
      );
      expect(answer.status).to.be.within(400, 499);
    });
  });
});

/** The `code` of a problem answer, if any. */
function codeOf(answer: RawAnswer): string | undefined {
  try {
    const code = (JSON.parse(answer.body.toString("utf8")) as { code?: unknown }).code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/** A request, short enough for a failure message. */
function describeRequest(request: RawRequest): string {
  const body = request.body === undefined ? "" : Buffer.from(request.body).toString("utf8");
  const headers = (request.headers ?? []).map(([n, v]) => `${n}: ${v.length > 80 ? `${v.slice(0, 80)}…` : v}`);
  return JSON.stringify({
    method: request.method,
    target: request.target,
    headers,
    body: body.length > 300 ? `${body.slice(0, 300)}… (${body.length} bytes)` : body,
  });
}
