import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import type { PolicySettings } from "../../../gateway/config/policySettings";
import { worstCaseGas } from "../../../gateway/policy/worstCaseGas";
import { buildTestApp } from "../../helpers/testApp";
import { openDatabase } from "../../../gateway/storage/database";
import { hs256Provider } from "../../helpers/providerProofs";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const SECRET = "acme-proof-secret-of-at-least-32-chars";
const TARGET = "0x000000000000000000000000000000000000dEaD";
const OTHER_TARGET = "0x000000000000000000000000000000000000bEEF";
/** What one request of a single empty call reserves under the default TX_MAX_CALL_GAS. */
const ONE_REQUEST = worstCaseGas([{ to: TARGET, value: 0n, data: "0x" }], "wallet", 5_000_000);

const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** An API over its own database (or a shared file), with apps that act for `<provider>:…` ids in test mode. */
function service(databasePath?: string, overrides: Record<string, unknown> = {}) {
  const chains = new Map([
    ["localhost", idleChain("localhost", 31337)],
    ["maticmum", idleChain("maticmum", 80001)],
  ]);
  return buildTestApp(overrides, {
    chains,
    txChains: ["localhost", "maticmum"],
    ...(databasePath ? { databasePath } : {}),
  });
}

type Service = ReturnType<typeof service>;

/** Registers an app owning `provider`, with `policy`, and a way to post its wallet requests. */
async function appOf(built: Service, provider: string, policy: PolicySettings = {}) {
  const { app, token } = await built.appWithToken(`${provider} app`, true);
  const repos = await built.repositories;
  await repos.providers.register(app.id, provider, hs256Provider(SECRET));
  await repos.apps.setPolicy(app.id, policy);
  const post = (body: Record<string, unknown> = {}, on: Service = built) =>
    request(on.app)
      .post("/v1/kernel/tx")
      .set("Authorization", `Bearer ${token}`)
      .send({
        userId: `${provider}:alice`,
        chain: "localhost",
        to: [TARGET],
        value: ["0"],
        data: ["0x"],
        auth: "",
        ...body,
      });
  return { app, token, post };
}

/** How many requests an app has stored. */
async function stored(built: Service): Promise<number> {
  const counts = await (await built.repositories).transactions.countByStatus();
  return counts.reduce((sum, row) => sum + row.count, 0);
}

describe("API: per-app budgets and policies (a malicious or runaway app)", () => {
  it("a runaway app that spends its budget on a chain gets 429 BUDGET_EXCEEDED, nothing stored; another app is unaffected", async () => {
    const built = service();
    const runaway = await appOf(built, "runaway", { budgetGas: 2n * ONE_REQUEST + 1000n, periodSeconds: 3600 });
    const other = await appOf(built, "other", { budgetGas: 2n * ONE_REQUEST, periodSeconds: 3600 });
    expect((await runaway.post()).status).to.equal(202);
    expect((await runaway.post()).status).to.equal(202);
    const refused = await runaway.post();
    expect(refused.status).to.equal(429);
    // A test-mode app's period is never shorter than the default (a day): what it reserved frees a day later.
    expect(refused.headers["retry-after"]).to.equal("86400");
    expect(refused.body).to.deep.include({
      code: "BUDGET_EXCEEDED",
      chain: "localhost",
      budgetGas: (2n * ONE_REQUEST + 1000n).toString(),
      remainingGas: "1000",
      requestGas: ONE_REQUEST.toString(),
      periodSeconds: 86_400,
      freesAt: "2026-11-23T12:00:00.000Z",
    });
    expect(await stored(built)).to.equal(2);
    // The budget is per chain: the same app still spends on another.
    expect((await runaway.post({ chain: "maticmum" })).status).to.equal(202);
    expect((await other.post()).status).to.equal(202);
    expect((await other.post()).status).to.equal(202);
    expect(await stored(built)).to.equal(5);
    built.close();
  });

  it("a request larger than the whole budget is refused without a time it would fit", async () => {
    const built = service();
    const tiny = await appOf(built, "tiny", { budgetGas: 1000n });
    const refused = await tiny.post();
    expect([refused.status, refused.body.code, refused.body.freesAt]).to.deep.equal([429, "BUDGET_EXCEEDED", null]);
    expect(refused.headers["retry-after"]).to.equal(undefined);
    expect(await stored(built)).to.equal(0);
    built.close();
  });

  it("a runaway app over its rate gets 429 RATE_LIMITED with Retry-After, nothing stored; another app is unaffected", async () => {
    const built = service();
    const runaway = await appOf(built, "runaway", { rate: { requests: 2, perSeconds: 60 } });
    const other = await appOf(built, "other", { rate: { requests: 2, perSeconds: 60 } });
    expect((await runaway.post()).status).to.equal(202);
    expect((await runaway.post()).status).to.equal(202);
    const refused = await runaway.post();
    expect(refused.status).to.equal(429);
    expect(refused.body.code).to.equal("RATE_LIMITED");
    // The test clock stands at 12:00:00.000, the start of a minute window.
    expect(refused.headers["retry-after"]).to.equal("60");
    expect(await stored(built)).to.equal(2);
    expect((await other.post()).status).to.equal(202);
    expect(await stored(built)).to.equal(3);
    // The next window lets it in again.
    built.setClock(new Date("2026-11-22T12:01:00.000Z"));
    expect((await runaway.post()).status).to.equal(202);
    built.close();
  });

  it("a runaway app far over its rate is shed without a database write per refused request", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-rate-")), "idwallet.sqlite");
    const built = service(file);
    const runaway = await appOf(built, "runaway", { rate: { requests: 2, perSeconds: 60 } });
    for (let i = 0; i < 2; i++) expect((await runaway.post()).status).to.equal(202);
    for (let i = 0; i < 20; i++) expect((await runaway.post()).status).to.equal(429);
    const database = await openDatabase(file);
    const windows = await database.db.selectFrom("app_rate_windows").select("count").execute();
    await database.close();
    // The first refusal was counted; the next nineteen were refused from memory.
    expect(windows.map((w) => Number(w.count))).to.deep.equal([3]);
    built.close();
  });

  it("a test-mode app gets no more than the defaults, whatever was set for it", async () => {
    const built = service(undefined, { policy: { rate: "3/min", budgetGas: (4n * ONE_REQUEST).toString() } });
    const greedy = await appOf(built, "greedy", {
      rate: { requests: 1_000_000, perSeconds: 1 },
      budgetGas: 1000n * ONE_REQUEST,
    });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await greedy.post({ userId: `greedy:u${i}` })).body.code ?? "accepted");
    expect(answers).to.deep.equal(["accepted", "accepted", "accepted", "RATE_LIMITED"]);
    built.setClock(new Date("2026-11-22T12:01:00.000Z"));
    expect((await greedy.post()).status).to.equal(202);
    expect((await greedy.post({ userId: "greedy:bob" })).body.code).to.equal("BUDGET_EXCEEDED");
    built.close();
  });

  it("denies a chain, a target or a value the app's policy does not allow: 403 POLICY_DENIED naming the rule, nothing stored", async () => {
    const built = service();
    const app = await appOf(built, "acme", { chains: ["maticmum"], targets: [TARGET], maxValueWei: 100n });
    const chain = await app.post({ chain: "localhost" });
    expect([chain.status, chain.body.code, chain.body.rule, chain.body.allowed]).to.deep.equal([
      403,
      "POLICY_DENIED",
      "chains",
      ["maticmum"],
    ]);
    const target = await app.post({
      chain: "maticmum",
      to: [TARGET, OTHER_TARGET],
      value: ["0", "0"],
      data: ["0x", "0x"],
    });
    expect([target.status, target.body.code, target.body.rule, target.body.index]).to.deep.equal([
      403,
      "POLICY_DENIED",
      "targets",
      1,
    ]);
    const value = await app.post({ chain: "maticmum", value: ["101"] });
    expect([value.status, value.body.rule, value.body.maxValueWei]).to.deep.equal([403, "maxValue", "100"]);
    expect(await stored(built)).to.equal(0);
    expect((await app.post({ chain: "maticmum", to: [TARGET.toLowerCase()], value: ["100"] })).status).to.equal(202);
    built.close();
  });

  it("caps what one user id's requests may cost in a day: POLICY_DENIED userDailyCap; other user ids go on", async () => {
    const built = service();
    const app = await appOf(built, "acme", { userDailyCapGas: ONE_REQUEST });
    expect((await app.post()).status).to.equal(202);
    const capped = await app.post();
    expect([capped.status, capped.body.code, capped.body.rule, capped.body.freesAt]).to.deep.equal([
      403,
      "POLICY_DENIED",
      "userDailyCap",
      "2026-11-23T12:00:00.000Z",
    ]);
    expect((await app.post({ userId: "acme:bob" })).status).to.equal(202);
    expect(await stored(built)).to.equal(2);
    built.close();
  });

  it("an Idempotency-Key retry of an accepted request is answered, not refused by the budget it already holds", async () => {
    const built = service();
    const app = await appOf(built, "acme", { budgetGas: ONE_REQUEST });
    const first = await app.post({}).set("Idempotency-Key", "once");
    const again = await app.post({}).set("Idempotency-Key", "once");
    expect([first.status, again.status, again.body.id]).to.deep.equal([202, 202, first.body.id]);
    built.close();
  });

  it("shows each app's budget use per chain in /metrics, read from the database", async () => {
    const built = service();
    const spender = await appOf(built, "spender", { budgetGas: 10n * ONE_REQUEST });
    await spender.post();
    await spender.post();
    const text = (await request(built.app).get("/metrics")).text;
    expect(text).to.include(
      `idwallet_app_budget_used_gas{app="${spender.app.id}",chain="localhost"} ${Number(2n * ONE_REQUEST)}`,
    );
    expect(text).to.include(
      `idwallet_app_budget_gas{app="${spender.app.id}",chain="localhost"} ${Number(10n * ONE_REQUEST)}`,
    );
    built.close();
  });

  describe("shared by every process on one database file", () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), "idwallet-budgets-"));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("counts the rate and the budget across two app instances, as the workers of a cluster", async () => {
      const file = path.join(dir, "shared.sqlite");
      const first = service(file);
      await first.repositories;
      const second = service(file);
      const runaway = await appOf(first, "runaway", {
        rate: { requests: 3, perSeconds: 60 },
        budgetGas: 2n * ONE_REQUEST,
      });
      // Alternating instances: each alone has seen at most two requests, under any limit it kept in memory.
      expect((await runaway.post({}, first)).status).to.equal(202);
      expect((await runaway.post({}, second)).status).to.equal(202);
      const overBudget = await runaway.post({}, first);
      expect([overBudget.status, overBudget.body.code]).to.deep.equal([429, "BUDGET_EXCEEDED"]);
      const overRate = await runaway.post({}, second);
      expect([overRate.status, overRate.body.code]).to.deep.equal([429, "RATE_LIMITED"]);
      expect(await stored(second)).to.equal(2);
      first.close();
      second.close();
    });
  });
});

describe("API: Safe requests count against the app's budget (the relayer pays for them)", () => {
  const OPERATOR_KEY = `0x${"5a".repeat(32)}`;
  const CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;
  const SIGNER = "0x00000000000000000000000000000000000000A1";
  /** The API with Safe accounts configured on `localhost` (its chain answers nothing). */
  const safeService = () =>
    buildTestApp(
      {
        chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: OPERATOR_KEY, contracts: CONTRACTS },
      },
      { chains: new Map([["localhost", idleChain("localhost", 31337)]]), txChains: ["localhost"] },
    );

  it("a Safe custom call over the app's budget is refused with 429 BUDGET_EXCEEDED and not stored; another app's is accepted", async () => {
    const built = safeService();
    const repos = await built.repositories;
    const appWithSafe = async (name: string, budgetGas: bigint) => {
      const { app, token } = await built.appWithToken(name);
      await repos.apps.setPolicy(app.id, { budgetGas });
      const post = (route: string, body: object) =>
        request(built.app).post(route).set("Authorization", `Bearer ${token}`).send(body);
      const { body: safe } = await post("/v1/localhost/account", { signers: [SIGNER] });
      return { post, custom: () => post(`/v1/localhost/account/${safe.address}/custom`, { to: TARGET, data: "0x" }) };
    };
    const relayCeiling = worstCaseGas([], "safe", 5_000_000);
    const runaway = await appWithSafe("runaway", 2n * relayCeiling);
    expect((await runaway.custom()).status).to.equal(202);
    const refused = await runaway.custom();
    expect([refused.status, refused.body.code, refused.body.remainingGas]).to.deep.equal([429, "BUDGET_EXCEEDED", "0"]);
    expect(await stored(built)).to.equal(2);
    const other = await appWithSafe("other", 2n * relayCeiling);
    expect((await other.custom()).status).to.equal(202);
    expect(await stored(built)).to.equal(4);
    built.close();
  });

  it("a Safe custom delegatecall cannot slip past the app's target allowlist (its code calls anywhere)", async () => {
    const built = safeService();
    const repos = await built.repositories;
    const { app, token } = await built.appWithToken("allowlisted");
    await repos.apps.setPolicy(app.id, { targets: [TARGET] });
    // The operator let it delegatecall from its Safes at all (without the grant: SAFE_CALL_NOT_ALLOWED, first).
    await repos.apps.setSafeConfigGrant(app.id, true);
    const post = (route: string, body: object) =>
      request(built.app).post(route).set("Authorization", `Bearer ${token}`).send(body);
    const { body: safe } = await post("/v1/localhost/account", { signers: [SIGNER] });
    const custom = (operation: number) =>
      post(`/v1/localhost/account/${safe.address}/custom`, { to: TARGET, data: "0x", operation });
    const refused = await custom(1);
    expect([refused.status, refused.body.code, refused.body.rule]).to.deep.equal([403, "POLICY_DENIED", "targets"]);
    expect(await stored(built)).to.equal(1);
    expect((await custom(0)).status).to.equal(202);
    built.close();
  });
});
