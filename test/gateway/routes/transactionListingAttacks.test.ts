import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { createListCursors } from "../../../gateway/transactions/listCursor";
import { TEST_NOW, TEST_TOKEN_SECRET, buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";

const TARGET = "0x000000000000000000000000000000000000dEaD";
/** A phone user of both apps: each may have requests for the same id. */
const SHARED_USER = "tel:14155552671";

const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** Two apps with requests of their own, some for the same user id; how each lists. */
async function twoApps() {
  const built = buildTestApp(
    {},
    { chains: new Map([["localhost", idleChain("localhost", 31337)]]), txChains: ["localhost"] },
  );
  const acme = await built.appWithToken("acme app", true);
  const rival = await built.appWithToken("rival app", true);
  const repositories = await built.repositories;
  await repositories.providers.register(acme.app.id, "acme", hs256Provider("a".repeat(40)));
  let clock = TEST_NOW.getTime();
  /** Stores a request of `appId` as the accept path would (a phone user's proof is not what is tested here). */
  const store = async (appId: string, userId: string) => {
    built.setClock(new Date((clock += 1)));
    const { record } = await repositories.transactions.create({
      appId,
      accountType: "kernel",
      userId,
      chain: "localhost",
      sender: "0x00000000000000000000000000000000000000A1",
      calls: [{ to: TARGET, value: 0n, data: "0x" }],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: "h",
    });
    return record.id;
  };
  const acmeIds: string[] = [];
  for (let i = 0; i < 3; i++)
    acmeIds.push(await store(acme.app.id, "acme:alice"), await store(acme.app.id, SHARED_USER));
  const rivalIds = [await store(rival.app.id, SHARED_USER), await store(rival.app.id, SHARED_USER)];
  const list = (token: string, query = "") =>
    request(built.app).get(`/v1/kernel/tx${query}`).set("Authorization", `Bearer ${token}`);
  const cursorOf = async (token: string, query: string): Promise<string> => {
    const res = await list(token, query);
    expect(res.body.nextCursor, JSON.stringify(res.body)).to.be.a("string");
    return res.body.nextCursor;
  };
  return { ...built, acme, rival, acmeIds, rivalIds, list, cursorOf };
}

const itemIds = (res: request.Response): string[] => res.body.items.map((item: { id: string }) => item.id);
const withCursor = (cursor: string, query = "") => `?cursor=${encodeURIComponent(cursor)}${query}`;

/** What every refused cursor gets: one answer, whichever check it failed. */
const expectCursorRefused = (res: request.Response, label: string) => {
  expect([res.status, res.body.code, res.body.errors], label).to.deep.equal([
    400,
    "INVALID_CURSOR",
    [{ pointer: "/cursor", detail: "invalid" }],
  ]);
};

describe("attacks on GET /v1/kernel/tx: another app, a borrowed or tampered cursor", () => {
  it("another app lists only its own requests, whatever the filter: a user id both apps serve, the first app's user", async () => {
    const { acme, rival, acmeIds, rivalIds, list, close } = await twoApps();
    expect(itemIds(await list(rival.token))).to.deep.equal([...rivalIds].reverse());
    expect(itemIds(await list(rival.token, `?userId=${SHARED_USER}`))).to.deep.equal([...rivalIds].reverse());
    // The first app's own user: the same answer as for an id nobody ever used, so it learns nothing of them.
    const ofAlice = await list(rival.token, "?userId=acme:alice");
    const ofNobody = await list(rival.token, "?userId=acme:nobody");
    expect([ofAlice.status, ofAlice.body]).to.deep.equal([200, { items: [], nextCursor: null }]);
    expect(ofNobody.body).to.deep.equal(ofAlice.body);
    expect(itemIds(await list(acme.token))).to.deep.equal([...acmeIds].reverse());
    close();
  });

  it("a cursor taken from another app's listing is refused, not read as a place in the thief's or the owner's listing", async () => {
    const { acme, rival, list, cursorOf, close } = await twoApps();
    const acmeCursor = await cursorOf(acme.token, "?limit=1");
    expectCursorRefused(await list(rival.token, withCursor(acmeCursor, "&limit=1")), "the first app's, by the rival");
    const rivalCursor = await cursorOf(rival.token, "?limit=1");
    expectCursorRefused(await list(acme.token, withCursor(rivalCursor, "&limit=1")), "the rival's, by the first app");
    close();
  });

  it("a cursor carried into the same app's listing with other filters is refused (a cursor is good for its listing alone)", async () => {
    const { acme, list, cursorOf, close } = await twoApps();
    const cursor = await cursorOf(acme.token, `?limit=1&userId=${SHARED_USER}`);
    expect((await list(acme.token, withCursor(cursor, `&limit=1&userId=${SHARED_USER}`))).status).to.equal(200);
    for (const other of [
      "",
      "&userId=acme:alice",
      "&status=queued",
      "&chain=localhost",
      `&userId=${SHARED_USER}&status=queued`,
    ]) {
      expectCursorRefused(await list(acme.token, withCursor(cursor, `&limit=1${other}`)), other || "no filter");
    }
    close();
  });

  it("a tampered cursor is refused: its place moved, its MAC cut, changed or swapped, one signed with another key", async () => {
    const { acme, list, cursorOf, close } = await twoApps();
    const cursor = await cursorOf(acme.token, "?limit=1");
    const [place, mac] = cursor.split(".") as [string, string];
    const [createdAt, id] = JSON.parse(Buffer.from(place, "base64url").toString()) as [string, string];
    const placeOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const changed = (at: number) => {
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      // The next character, or (the last one, whose low bits base64 leaves unused) another spelling of the same bytes.
      const next = alphabet[(alphabet.indexOf(mac[at]!) + (at === mac.length - 1 ? 1 : 17)) % 64]!;
      return `${place}.${mac.slice(0, at)}${next}${mac.slice(at + 1)}`;
    };
    const forged = createListCursors(`${TEST_TOKEN_SECRET}-but-another`).issue(
      ["wallet requests", "kernel", acme.app.id, null, null, null],
      { createdAt, id },
    );
    const tampered: [string, string][] = [
      ["an earlier place, the MAC kept", `${placeOf(["2000-01-01T00:00:00.000Z", id])}.${mac}`],
      ["another id, the MAC kept", `${placeOf([createdAt, "ffffffff-ffff-4fff-bfff-ffffffffffff"])}.${mac}`],
      ["a place that is no place", `${placeOf({ createdAt, id })}.${mac}`],
      ["the MAC cut", place],
      ["the MAC shortened", `${place}.${mac.slice(0, 10)}`],
      ["its MAC's first character changed", changed(0)],
      ["its MAC's last character spelt otherwise", changed(mac.length - 1)],
      ["the place alone, no MAC at all", `${place}.`],
      ["signed with another key", forged],
      ["padded", `${cursor}=`],
      ["its parts swapped", `${mac}.${place}`],
    ];
    for (const [label, value] of tampered) expectCursorRefused(await list(acme.token, withCursor(value)), label);
    expect((await list(acme.token, withCursor(cursor))).status, "the cursor as given").to.equal(200);
    close();
  });

  it("even a cursor the service would take names only a place: the page after it holds the app's own requests alone", async () => {
    const { rival, rivalIds, acmeIds, list, repositories, close } = await twoApps();
    // As if the token secret had leaked: a valid cursor of the rival's listing, at the first app's newest request.
    const newest = (await (await repositories).transactions.find(acmeIds.at(-1)!))!;
    const cursor = createListCursors(TEST_TOKEN_SECRET).issue(
      ["wallet requests", "kernel", rival.app.id, null, null, null],
      { createdAt: newest.createdAt, id: newest.id },
    );
    const res = await list(rival.token, withCursor(cursor));
    expect([res.status, itemIds(res)]).to.deep.equal([200, []]);
    expect(itemIds(await list(rival.token))).to.deep.equal([...rivalIds].reverse());
    close();
  });
});
