import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const SIGNER = "0x00000000000000000000000000000000000000A1";
const PAYEE = "0x000000000000000000000000000000000000bEEF";
const NO_SAFE = "0x00000000000000000000000000000000000000B0";

const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** An app with two Safes of its own, another app with one, and how each sends and lists. */
async function safesOfTwoApps() {
  const built = buildTestApp(
    {
      chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } },
      relayerKey: `0x${"4b".repeat(32)}`,
      safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: PLACEHOLDER_SAFE_CONTRACTS },
    },
    { chains: new Map([["localhost", idleChain("localhost", 31337)]]), txChains: ["localhost"] },
  );
  const acme = await built.appWithToken("acme app");
  const rival = await built.appWithToken("rival app");
  let clock = TEST_NOW.getTime();
  /** POSTs as `token`'s app, a millisecond after the request before. */
  const post = async (token: string, path: string, body: object) => {
    built.setClock(new Date((clock += 1)));
    const res = await request(built.app).post(path).set("Authorization", `Bearer ${token}`).send(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body as { address: string; txUuid: string };
  };
  const createSafe = async (token: string) =>
    (await post(token, "/v1/localhost/account", { signers: [SIGNER] })).address;
  const payout = async (token: string, safe: string) =>
    (await post(token, `/v1/localhost/account/${safe}/payout/transfer`, { to: PAYEE, amount: "1" })).txUuid;
  const list = (token: string, safe: string, query = "", chain = "localhost") =>
    request(built.app).get(`/v1/${chain}/account/${safe}/txs${query}`).set("Authorization", `Bearer ${token}`);
  const safe = await createSafe(acme.token);
  const otherSafe = await createSafe(acme.token);
  const rivalSafe = await createSafe(rival.token);
  return { ...built, acme: acme.token, rival: rival.token, safe, otherSafe, rivalSafe, post, payout, list };
}

const txUuids = (res: request.Response): string[] => res.body.items.map((item: { txUuid: string }) => item.txUuid);

describe("API: GET /v1/{chain}/account/{address}/txs (a Safe's requests, newest first, page by page)", () => {
  it("answers the Safe's requests (its deployment, its payouts) newest first, each as .../tx/{txUuid} shows it", async () => {
    const { app, acme, rival, safe, otherSafe, rivalSafe, payout, list, repositories, close } = await safesOfTwoApps();
    const deployment = (await (await repositories).safes.find("localhost", safe))!.deploymentTxId;
    const sent = [await payout(acme, safe), await payout(acme, otherSafe), await payout(acme, safe)];
    await payout(rival, rivalSafe);
    const res = await list(acme, safe);
    expect(res.status).to.equal(200);
    expect(txUuids(res)).to.deep.equal([sent[2], sent[0], deployment]);
    expect(res.body.nextCursor).to.equal(null);
    const shown = await request(app)
      .get(`/v1/localhost/account/${safe}/tx/${sent[2]}`)
      .set("Authorization", `Bearer ${acme}`);
    expect(res.body.items[0]).to.deep.equal(shown.body);
    // Any spelling of the address is the same Safe.
    expect(txUuids(await list(acme, safe.toLowerCase()))).to.deep.equal(txUuids(res));
    close();
  });

  it("pages through with the cursor while payouts keep coming: each earlier request once, none missed; filters by status", async () => {
    const { acme, safe, payout, list, database, close } = await safesOfTwoApps();
    const before = [
      await payout(acme, safe),
      await payout(acme, safe),
      await payout(acme, safe),
      await payout(acme, safe),
    ];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(acme, safe, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).to.equal(200);
      seen.push(...txUuids(res));
      cursor = res.body.nextCursor;
      await payout(acme, safe);
    } while (cursor !== null);
    expect(seen.slice(0, 4)).to.deep.equal([...before].reverse());
    expect(seen).to.have.length(5);
    await (
      await database
    ).db
      .updateTable("transactions")
      .set({ status: "included" })
      .where("id", "=", before[1]!)
      .execute();
    expect(txUuids(await list(acme, safe, "?status=included"))).to.deep.equal([before[1]]);
    close();
  });

  it("refuses bad parameters, an unknown Safe and another chain with their problems", async () => {
    const { acme, safe, list, close } = await safesOfTwoApps();
    const body = (res: request.Response) => {
      const { requestId, type, instance: _instance, ...rest } = res.body as Record<string, unknown>;
      expect([requestId, type]).to.deep.equal([res.headers["x-request-id"], "about:blank"]);
      return [res.status, rest];
    };
    const invalid = (pointer: string, detail: string) => [
      400,
      {
        title: "Invalid request",
        status: 400,
        code: "INVALID_REQUEST",
        detail: "The request failed validation",
        errors: [{ pointer, detail }],
      },
    ];
    expect(body(await list(acme, safe, "?limit=101"))).to.deep.equal(invalid("/limit", "an integer from 1 to 100"));
    expect(body(await list(acme, safe, "?status=done"))).to.deep.equal(
      invalid("/status", 'Invalid option: expected one of "queued"|"submitted"|"included"|"failed"'),
    );
    expect(body(await list(acme, safe, "?userId=acme:alice"))).to.deep.equal(invalid("/userId", "Unknown field"));
    expect(body(await list(acme, "0x1234"))).to.deep.equal(invalid("/address", "an EVM address: 0x and 40 hex digits"));
    expect(body(await list(acme, safe, "?cursor=x.y"))).to.deep.equal([
      400,
      {
        title: "Invalid request",
        status: 400,
        code: "INVALID_CURSOR",
        detail: "cursor is not one this listing gave out (a nextCursor of the same listing, with the same filters)",
        errors: [{ pointer: "/cursor", detail: "invalid" }],
      },
    ]);
    expect(body(await list(acme, NO_SAFE))).to.deep.equal([
      404,
      {
        title: "Not found",
        status: 404,
        code: "NOT_FOUND",
        detail: `No Safe at ${NO_SAFE} on localhost was created through this service`,
      },
    ]);
    expect(body(await list(acme, safe, "", "nowhere"))).to.deep.equal([
      400,
      {
        title: "Unknown chain",
        status: 400,
        code: "UNKNOWN_CHAIN",
        detail:
          "No chain is named nowhere (chains go by their ERC-3770 short names). Chains with Safe accounts here: localhost",
      },
    ]);
    close();
  });
});

describe("attacks on GET /v1/{chain}/account/{address}/txs: another app, a cursor of another listing", () => {
  it("another app listing the first app's Safe: 403 SAFE_NOT_OWNED as on its other routes, no request shown", async () => {
    const { rival, safe, list, close } = await safesOfTwoApps();
    const res = await list(rival, safe);
    expect([res.status, res.body.code, res.body.items]).to.deep.equal([403, "SAFE_NOT_OWNED", undefined]);
    const withStatus = await list(rival, safe, "?status=queued&limit=100");
    expect([withStatus.status, withStatus.body.code]).to.deep.equal([403, "SAFE_NOT_OWNED"]);
    close();
  });

  it("a cursor of one Safe's listing does not open another's: not the app's other Safe, not the Kernel listing, not another filter", async () => {
    const { app, acme, rival, safe, otherSafe, rivalSafe, payout, list, close } = await safesOfTwoApps();
    for (let i = 0; i < 2; i++)
      (await payout(acme, safe), await payout(acme, otherSafe), await payout(rival, rivalSafe));
    const cursor = (await list(acme, safe, "?limit=1")).body.nextCursor as string;
    const rivalCursor = (await list(rival, rivalSafe, "?limit=1")).body.nextCursor as string;
    const at = (value: string, extra = "") => `?limit=1&cursor=${encodeURIComponent(value)}${extra}`;
    expect((await list(acme, safe, at(cursor))).status, "its own listing").to.equal(200);
    const refused = [
      ["the app's other Safe", await list(acme, otherSafe, at(cursor))],
      ["with a status", await list(acme, safe, at(cursor, "&status=queued"))],
      ["the rival's own Safe", await list(rival, rivalSafe, at(cursor))],
      ["the rival's cursor on the first app's Safe", await list(acme, safe, at(rivalCursor))],
      [
        "the Kernel listing",
        await request(app)
          .get(`/v1/kernel/tx${at(cursor)}`)
          .set("Authorization", `Bearer ${acme}`),
      ],
    ] as const;
    for (const [label, res] of refused)
      expect([res.status, res.body.code], label).to.deep.equal([400, "INVALID_CURSOR"]);
    close();
  });
});
