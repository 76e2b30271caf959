import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";

const TARGET = "0x000000000000000000000000000000000000dEaD";

/** A chain client that is never called: accepting and listing requests touch no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** The app's listing problem as the API answers it, its request id apart. */
const problem = (status: number, code: string, title: string, detail: string, instance: string, extra = {}) => ({
  type: "about:blank",
  title,
  status,
  code,
  detail,
  ...extra,
  instance,
});
const withoutRequestId = (res: request.Response) => {
  const { requestId, ...rest } = res.body as Record<string, unknown>;
  expect(requestId, JSON.stringify(res.body)).to.be.a("string");
  return [res.status, rest];
};

describe("API: GET /v1/kernel/tx (the app's Kernel requests, newest first, page by page)", () => {
  const setup = async () => {
    const chains = new Map([
      ["localhost", idleChain("localhost", 31337)],
      ["chi", idleChain("chi", 10200)],
      ["eth", idleChain("eth", 1)],
    ]);
    const built = buildTestApp({}, { chains, txChains: ["localhost", "chi"] });
    const acme = await built.appWithToken("acme app", true);
    const rival = await built.appWithToken("rival app", true);
    const repositories = await built.repositories;
    await repositories.providers.register(acme.app.id, "acme", hs256Provider("a".repeat(40)));
    await repositories.providers.register(rival.app.id, "rival", hs256Provider("b".repeat(40)));
    let clock = TEST_NOW.getTime();
    /** Sends a request as `token`'s app, a millisecond after the one before. */
    const send = async (token: string, body: Record<string, unknown> = {}, path = "/v1/kernel/tx") => {
      built.setClock(new Date((clock += 1)));
      const res = await request(built.app)
        .post(path)
        .set("Authorization", `Bearer ${token}`)
        .send({
          userId: "acme:alice",
          chain: "localhost",
          to: [TARGET],
          value: ["0"],
          data: ["0x"],
          auth: "",
          ...body,
        });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
      return res.body as { id: string };
    };
    const list = (token: string, query = "") =>
      request(built.app).get(`/v1/kernel/tx${query}`).set("Authorization", `Bearer ${token}`);
    const setStatus = async (id: string, status: "failed" | "included") =>
      (await built.database).db.updateTable("transactions").set({ status }).where("id", "=", id).execute();
    return { ...built, acme: acme.token, rival: rival.token, send, list, setStatus };
  };

  it("answers the app's Kernel requests newest first, each as GET /v1/kernel/tx/{id} shows it, 20 a page by default", async () => {
    const { app, acme, send, list, close } = await setup();
    const sent = [];
    for (let i = 0; i < 22; i++) sent.push(await send(acme));
    // A base-wallet request is read by id on its own route: the Kernel listing does not show it.
    await send(acme, { userId: "acme:bob" }, "/v1/base/tx");
    const first = await list(acme);
    expect(first.status).to.equal(200);
    expect(first.headers["content-type"]).to.match(/^application\/json/);
    expect(first.body.items.map((item: { id: string }) => item.id)).to.deep.equal(
      sent
        .map((tx) => tx.id)
        .reverse()
        .slice(0, 20),
    );
    const shown = await request(app).get(`/v1/kernel/tx/${sent[21]!.id}`).set("Authorization", `Bearer ${acme}`);
    expect(first.body.items[0]).to.deep.equal(shown.body);
    expect(first.body.nextCursor).to.be.a("string");
    const second = await list(acme, `?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items.map((item: { id: string }) => item.id)).to.deep.equal([sent[1]!.id, sent[0]!.id]);
    expect(second.body.nextCursor).to.equal(null);
    close();
  });

  it("pages through with the cursor while requests keep arriving: each request of the first page's time once, none missed", async () => {
    const { acme, send, list, close } = await setup();
    const before = [];
    for (let i = 0; i < 8; i++) before.push((await send(acme)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(acme, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).to.equal(200);
      seen.push(...res.body.items.map((item: { id: string }) => item.id));
      cursor = res.body.nextCursor;
      // Newer requests arrive between the pages: they are at the top of a listing begun later, not in this one.
      await send(acme);
      await send(acme, { userId: "acme:bob" });
    } while (cursor !== null);
    expect(seen).to.deep.equal([...before].reverse());
    close();
  });

  it("filters by user id (any spelling of it), chain and status, each alone and together", async () => {
    const { acme, send, list, setStatus, close } = await setup();
    // The id as one client wrote it: "e" and a combining acute accent (NFC makes it "é").
    const cafe = await send(acme, { userId: "acme:cafe\u0301" });
    const alice = await send(acme);
    const onChi = await send(acme, { chain: "chi" });
    const failed = await send(acme, { userId: "acme:caf\u00e9" });
    await setStatus(failed.id, "failed");
    const ids = async (query: string) => {
      const res = await list(acme, query);
      expect(res.status, `${query}: ${JSON.stringify(res.body)}`).to.equal(200);
      return res.body.items.map((item: { id: string }) => item.id);
    };
    const cafeIds = [failed.id, cafe.id];
    for (const spelling of ["acme:caf\u00e9", "acme:cafe\u0301", " ACME: caf\u00e9 ", "Acme:cafe\u0301"]) {
      expect(await ids(`?userId=${encodeURIComponent(spelling)}`), spelling).to.deep.equal(cafeIds);
    }
    expect(await ids("?userId=ACME:alice")).to.deep.equal([onChi.id, alice.id]);
    expect(await ids("?chain=chi")).to.deep.equal([onChi.id]);
    // A chain of the registry this deployment does not serve: no request can be on it, none is listed.
    expect(await ids("?chain=eth")).to.deep.equal([]);
    expect(await ids("?status=failed")).to.deep.equal([failed.id]);
    expect(await ids("?status=queued&chain=localhost&userId=acme:caf%C3%A9")).to.deep.equal([cafe.id]);
    expect(await ids("?status=included")).to.deep.equal([]);
    close();
  });

  it("refuses a bad parameter with its problem: limit, status, an unknown one, a user id, a chain, a cursor", async () => {
    const { acme, send, list, close } = await setup();
    await send(acme);
    const invalid = (query: string, errors: { pointer: string; detail: string }[]) =>
      problem(400, "INVALID_REQUEST", "Invalid request", "The request failed validation", `/v1/kernel/tx${query}`, {
        errors,
      });
    const size = [{ pointer: "/limit", detail: "an integer from 1 to 100" }];
    const cases: [string, number, object][] = [
      ["?limit=0", 400, invalid("?limit=0", size)],
      ["?limit=101", 400, invalid("?limit=101", size)],
      ["?limit=abc", 400, invalid("?limit=abc", size)],
      ["?limit=1.5", 400, invalid("?limit=1.5", size)],
      [
        "?limit=1&limit=2",
        400,
        invalid("?limit=1&limit=2", [{ pointer: "/limit", detail: "Invalid input: expected string, received array" }]),
      ],
      [
        "?status=pending",
        400,
        invalid("?status=pending", [
          { pointer: "/status", detail: 'Invalid option: expected one of "queued"|"submitted"|"included"|"failed"' },
        ]),
      ],
      // A misspelt filter would list everything if it were ignored.
      ["?state=failed", 400, invalid("?state=failed", [{ pointer: "/state", detail: "Unknown field" }])],
      [
        "?userId=nocolon",
        400,
        problem(
          400,
          "INVALID_USER_ID",
          "Invalid user id",
          'user id must have the form "provider:username"',
          "/v1/kernel/tx?userId=nocolon",
          { userId: "nocolon" },
        ),
      ],
      [
        "?chain=nowhere",
        400,
        problem(
          400,
          "UNKNOWN_CHAIN",
          "Unknown chain",
          "No chain is named nowhere (chains go by their ERC-3770 short names). Chains served here: chi, localhost",
          "/v1/kernel/tx?chain=nowhere",
        ),
      ],
      [
        "?cursor=abc",
        400,
        problem(
          400,
          "INVALID_CURSOR",
          "Invalid request",
          "cursor is not one this listing gave out (a nextCursor of the same listing, with the same filters)",
          "/v1/kernel/tx?cursor=abc",
          { errors: [{ pointer: "/cursor", detail: "invalid" }] },
        ),
      ],
    ];
    for (const [query, status, expected] of cases) {
      const res = await list(acme, query);
      expect(res.headers["content-type"], query).to.match(/^application\/problem\+json/);
      expect(withoutRequestId(res), query).to.deep.equal([status, expected]);
    }
    expect((await list(acme, "?limit=100")).status).to.equal(200);
    expect((await list(acme, "?limit=1")).body.items).to.have.length(1);
    close();
  });

  it("without a valid app token: 401 with its code", async () => {
    const { app, close } = await setup();
    const none = await request(app).get("/v1/kernel/tx");
    expect([none.status, none.body.code]).to.deep.equal([401, "MISSING_TOKEN"]);
    const forged = await request(app).get("/v1/kernel/tx").set("Authorization", "Bearer abc.def.ghi");
    expect([forged.status, forged.body.code]).to.deep.equal([401, "INVALID_TOKEN"]);
    close();
  });
});
