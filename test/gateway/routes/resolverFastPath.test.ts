import { expect } from "chai";
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { bodyLimitBytes } from "../../../gateway/http/fastBody";
import { buildTestApp } from "../../helpers/testApp";
import { closeAll, expectSameAnswers, listenAsPair, sendToBoth } from "../../helpers/fastPathPair";
import type { RawAnswer, RawRequest } from "../../robustness/lib/rawHttp";

// POST /v1/resolver runs on a node:http fast path in front of the express app, which still has the route. Every
// request here goes to both, the fast path and the express app alone, built from the same parts: the answers
// (status, every header but Date, the body's bytes), the access log and the metrics must be the same.

const BODY_LIMIT = "1kb";
const DEADLINE_MS = 5000;

/** The fast path and the express app alone over the same dependencies, each on its own loopback port. */
async function startPair(overrides: Record<string, unknown> = {}) {
  const built = buildTestApp({ bodyLimit: BODY_LIMIT, resolver: { maxIds: 3 }, ...overrides });
  const { fast, reference, passedOn, servers } = await listenAsPair(built.deps, built.config.corsOrigins);
  return {
    built,
    fast,
    reference,
    passedOn,
    ports: servers.map((s) => s.port),
    /** The answers of the fast path and of the express app to `request`. */
    both: (request: RawRequest) =>
      sendToBoth(
        servers.map((s) => s.port),
        request,
        DEADLINE_MS,
      ),
    close: async () => {
      await closeAll(servers);
      built.close();
    },
  };
}
type Pair = Awaited<ReturnType<typeof startPair>>;

/** POSTs `body` to /v1/resolver with node's client, which sends it chunked; the status and the body answered. */
function postChunked(port: number, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/resolver",
        headers: { "Content-Type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.write(body);
    req.end();
  });
}

/** What must be equal: the status, the headers but Date, and the body's bytes. */
const comparable = (answer: RawAnswer) => {
  const { date: _date, ...headers } = answer.headers;
  return { status: answer.status, headers, body: answer.body.toString("latin1") };
};

const post = (body: Buffer | string, headers: [string, string][] = [["Content-Type", "application/json"]]) =>
  ({ method: "POST", target: "/v1/resolver", headers, body }) satisfies RawRequest;
const json = (value: unknown) => JSON.stringify(value);
/** Sends every case to both and compares answers, access lines, and request and resolved-id counts. */
const expectSame = (pair: Pair, cases: readonly (readonly [string, RawRequest])[]) =>
  expectSameAnswers(pair, cases, {
    comparable,
    counted: /^idwallet_(http_request_duration_seconds_count|resolved_user_ids_total)/,
  });
const exactly = (length: number) => {
  const head = '{"userIds":"github:alice","pad":"';
  return `${head}${"x".repeat(length - head.length - 2)}"}`;
};

describe("POST /v1/resolver fast path: answers as the express route does", () => {
  it("reads BODY_LIMIT as body-parser does", () => {
    expect([bodyLimitBytes("512b"), bodyLimitBytes("100KB"), bodyLimitBytes("1mb")]).to.deep.equal([
      512,
      100 * 1024,
      1024 * 1024,
    ]);
  });

  it("resolves, refuses ids and bodies, and limits the body exactly as the express route", async () => {
    const pair = await startPair();
    const limit = bodyLimitBytes(BODY_LIMIT);
    const answers = await expectSame(pair, [
      ["one id", post(json({ userIds: "github:alice" }))],
      [
        "ids spelled loosely, duplicates",
        post(json({ userIds: " GitHub:Alice , tel:+1 (555) 123-4567,github:alice" })),
      ],
      ["the base account type", post(json({ userIds: "github:alice", accountType: "base" }))],
      ["text/plain, as the spec's sample", post(json({ userIds: "x:jack" }), [["Content-Type", "text/plain"]])],
      ["a charset", post(json({ userIds: "x:jack" }), [["Content-Type", "application/json;charset=UTF-8"]])],
      ["invalid ids", post(json({ userIds: "nocolon,,tel:12ab" }))],
      ["an unknown provider", post(json({ userIds: "nosuchprovider:alice" }))],
      ["too many ids", post(json({ userIds: "x:a,x:b,x:c,x:d" }))],
      ["no userIds", post(json({}))],
      ["userIds not a string", post(json({ userIds: ["github:alice"] }))],
      ["an unknown account type", post(json({ userIds: "x:a", accountType: "safe" }))],
      ["an array", post("[]")],
      ["a JSON string (strict)", post(json("github:alice"))],
      ["malformed JSON", post("{userIds:")],
      ["an empty body", post("")],
      ["whitespace only", post(" \n\t")],
      ["a byte-order mark", post(`\ufeff${json({ userIds: "github:alice" })}`)],
      ["leading whitespace", post(`\r\n ${json({ userIds: "github:alice" })}`)],
      ["bytes that are not UTF-8", post(Buffer.from('{"userIds":"github:al\xffice"}', "latin1"))],
      ["an escaped lone surrogate", post('{"userIds":"telegram:\\ud800abcde"}')],
      ["a body at the limit", post(exactly(limit))],
      ["a body one byte over", post(exactly(limit + 1))],
      ["a body twice the limit", post(exactly(2 * limit))],
      [
        "an Origin",
        post(json({ userIds: "github:alice" }), [
          ["Content-Type", "application/json"],
          ["Origin", "https://a.example"],
        ]),
      ],
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([
      200, 200, 200, 200, 200, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 200, 200, 400, 400, 200, 413, 413,
      200,
    ]);
    await pair.close();
  });

  it("keeps the bearer rules, and CORS for a list of origins", async () => {
    const pair = await startPair({
      resolver: { requireAuth: true, maxIds: 3 },
      corsOrigins: ["https://app.example"],
    });
    const { token } = await pair.built.appWithToken();
    const body = json({ userIds: "github:alice" });
    const type: [string, string] = ["Content-Type", "application/json"];
    const answers = await expectSame(pair, [
      ["no token where one is required", post(body)],
      ["a valid token", post(body, [type, ["Authorization", `Bearer ${token}`]])],
      ["a malformed header", post(body, [type, ["Authorization", "Basic abc"]])],
      ["not a JWT", post(body, [type, ["Authorization", "Bearer not-a-jwt"]])],
      [
        "an allowed origin",
        post(body, [type, ["Authorization", `Bearer ${token}`], ["Origin", "https://app.example"]]),
      ],
      ["another origin", post(body, [type, ["Authorization", `Bearer ${token}`], ["Origin", "https://evil.example"]])],
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([401, 200, 401, 401, 200, 200]);
    expect(answers[4]!.headers["access-control-allow-origin"]).to.equal("https://app.example");
    expect(answers[5]!.headers["access-control-allow-origin"]).to.equal(undefined);
    await pair.close();
  });

  it("a body that stops short of its length gets the same 408 INCOMPLETE_BODY at the deadline", async () => {
    const pair = await startPair({ requestTimeoutMs: 300 });
    const [answer] = await expectSame(pair, [
      [
        "a short body",
        post('{"userIds":', [
          ["Content-Type", "application/json"],
          ["Content-Length", "100"],
        ]),
      ],
      [
        "a short body over the limit",
        post("{}", [
          ["Content-Type", "application/json"],
          ["Content-Length", "5000"],
        ]),
      ],
    ]);
    expect([answer!.status, JSON.parse(answer!.body.toString()).code]).to.deep.equal([408, "INCOMPLETE_BODY"]);
    await pair.close();
  });

  it("passes on what it does not read itself: other routes, encodings, media types, charsets, maintenance", async () => {
    const pair = await startPair();
    const body = json({ userIds: "github:alice" });
    const type: [string, string] = ["Content-Type", "application/json"];
    const passed = [
      ["GET", "/v1/resolver", post(body)],
      ["POST", "/v1/resolver?x=1", post(body)],
      ["POST", "/v1/resolver/", post(body)],
      ["POST", "/v1/resolver", post(gzipSync(body), [type, ["Content-Encoding", "gzip"]])],
      ["POST", "/v1/resolver", post(body, [["Content-Type", "application/merge-patch+json"]])],
      ["POST", "/v1/resolver", post(body, [["Content-Type", "application/json; charset=utf-16"]])],
      ["POST", "/v1/resolver", post(body, [["Content-Type", "application/x-www-form-urlencoded"]])],
      ["POST", "/v1/resolver", post(body, [])],
    ] as const;
    const statuses: number[] = [];
    for (const [method, target, request] of passed) {
      const headers = [...request.headers, ["X-Request-Id", "passed-on"] as const];
      const [fast, reference] = await pair.both({ ...request, headers, method, target });
      expect(comparable(fast), `${method} ${target} ${JSON.stringify(request.headers)}`).to.deep.equal(
        comparable(reference),
      );
      statuses.push(fast.status);
    }
    // GET on the POST route: 405 with Allow; a form, and a body without Content-Type, 415 (JSON as text/plain or
    // application/*+json is read: the spec's sample sends text/plain).
    expect(statuses).to.deep.equal([405, 200, 200, 200, 200, 400, 415, 415]);
    // A chunked body (no Content-Length), as node's own client sends one.
    const [fastChunked, referenceChunked] = await Promise.all(pair.ports.map((port) => postChunked(port, body)));
    expect(fastChunked).to.deep.equal(referenceChunked);
    expect(fastChunked!.status).to.equal(200);
    await pair.built.setStoredMaintenance(true);
    const [inMaintenance] = await pair.both(post(body));
    expect(inMaintenance.status).to.equal(503);
    expect(pair.passedOn).to.deep.equal([
      ...passed.map(([method, target]) => `${method} ${target}`),
      "POST /v1/resolver",
      "POST /v1/resolver",
    ]);
    await pair.close();
  });
});
