import { expect } from "chai";
import request from "supertest";
import { hexlify, randomBytes } from "ethers";
import type { NewTx } from "../../../gateway/transactions/txRecord";
import { RequestClosedError } from "../../../gateway/transactions/transactionsRepository";
import { userOpOf, walletTx } from "../storage/contract/webhookFixtures";
import { CONSOLE_BUNDLE_BUDGET_BYTES } from "../../../gateway/console/web/consoleAssets";
import { CONSOLE_TOKEN, consoleTestApp, logIn, postAction } from "./consoleSession";

const SCRIPT = `<script>alert("app")</script><img src=x onerror=alert(1)>`;
const USER_ID = `github:"><svg onload=alert(2)>`;

/** A request of `appId` as the API would have stored it, with `reservedGas` reserved. */
const newTx = (appId: string, userId = "github:alice", reservedGas = 50_000n): NewTx => ({
  ...walletTx(appId, 0xaa),
  userId,
  requestHash: hexlify(randomBytes(32)).slice(2),
  reservedGas,
});

describe("Operator console: views and actions (issue 38)", () => {
  const setup = async () => {
    const built = await consoleTestApp({ console: { token: CONSOLE_TOKEN } });
    const session = await logIn(built);
    const get = (path: string) => request(built.app).get(path).set("Cookie", session.cookie);
    return { built, session, get, repos: await built.repositories };
  };

  it("a malicious app name and user id render inert on every page that shows them (XSS)", async () => {
    const { built, get, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: SCRIPT, testMode: true });
      const { record } = await repos.transactions.create(newTx(app.id, USER_ID));
      for (const path of [
        "/console/apps",
        `/console/apps/${app.id}`,
        `/console/requests?q=${encodeURIComponent(USER_ID)}`,
        `/console/requests/${record.id}`,
      ]) {
        const res = await get(path);
        expect(res.status, path).to.equal(200);
        expect(res.text, path).not.to.include("<script>alert").and.not.include("<img src=x").and.not.include("<svg");
      }
      expect((await get("/console/apps")).text).to.include("&lt;script>alert(&quot;app&quot;)&lt;/script>");
      expect((await get(`/console/requests/${record.id}`)).text).to.include("&quot;>&lt;svg onload=alert(2)>");
    } finally {
      built.close();
    }
  });

  it("finds a request by id or by user id, across apps and within one app's page, filtered by status", async () => {
    const { built, get, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: "shop", testMode: true });
      const { record } = await repos.transactions.create(newTx(app.id, "github:carol"));
      expect((await get(`/console/requests?q=${record.id}`)).text).to.include(`/console/requests/${record.id}`);
      expect((await get(`/console/requests?q=github:carol`)).text).to.include(record.id);
      expect((await get(`/console/apps/${app.id}?q=github:carol&status=queued`)).text).to.include(record.id);
      expect((await get(`/console/apps/${app.id}?q=github:carol&status=included`)).text).not.to.include(record.id);
      const page = (await get(`/console/requests/${record.id}`)).text;
      expect(page).to.include('id="status"').and.include("queued").and.include("Cancel request");
    } finally {
      built.close();
    }
  });

  it("links a request's account to the chain's explorer when the operator set one (EXPLORER_URL_<CHAIN>)", async () => {
    const built = await consoleTestApp({
      console: { token: CONSOLE_TOKEN },
      chains: { localhost: { rpcUrl: "http://127.0.0.1:9", explorerUrl: "https://explorer.example/" } },
    });
    try {
      const session = await logIn(built);
      const repos = await built.repositories;
      const { app } = await repos.apps.create({ name: "explored", testMode: true });
      const { record } = await repos.transactions.create(newTx(app.id));
      const page = await request(built.app).get(`/console/requests/${record.id}`).set("Cookie", session.cookie);
      expect(page.text).to.include(`href="https://explorer.example/address/${record.sender}"`);
    } finally {
      built.close();
    }
  });

  it("each action asks for confirmation first, then acts and is recorded with the session's label", async () => {
    const { built, session, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: "budgeted", testMode: false });
      const asked = await postAction(built, session, "app-budget", { target: app.id, budget: "123456", confirm: "" });
      expect(asked.status).to.equal(200);
      expect(asked.text).to.include("123456 gas").and.include('id="confirm"');
      expect((await repos.apps.findById(app.id))!.policy.budgetGas).to.equal(undefined);
      const done = await postAction(built, session, "app-budget", { target: app.id, budget: "123456" });
      expect(done.status).to.equal(200);
      expect((await repos.apps.findById(app.id))!.policy.budgetGas).to.equal(123456n);
      const bad = await postAction(built, session, "app-budget", { target: app.id, budget: "-5" });
      expect(bad.status).to.equal(400);
      const [recorded] = await repos.console.recentActions(1);
      expect(recorded).to.include({ action: "app policy", target: app.id, result: "done" });
      expect(recorded!.who).to.match(/^console token [0-9a-f]{8}$/);
      expect(recorded!.detail).to.equal("budget: 123456 gas");
    } finally {
      built.close();
    }
  });

  it("cancels a queued request never built and releases its reservation; refuses one already built", async () => {
    const { built, session, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: "cancelling", testMode: false });
      const spent = async () =>
        (await repos.transactions.spendSince(new Map([[app.id, new Date(0)]]))).reduce((sum, r) => sum + r.gas, 0n);
      const { record: queued } = await repos.transactions.create(newTx(app.id));
      const { record: built1 } = await repos.transactions.create(newTx(app.id));
      expect(await spent()).to.equal(100_000n);
      // A build that failed before it was sent: back in the queue, but a signed build of it exists.
      await repos.transactions.settle(built1.id, {
        status: "queued",
        nextAttemptAt: new Date(),
        error: { code: "X", message: "x" },
      });
      expect((await repos.transactions.find(built1.id))!.attempts).to.equal(1);

      const refused = await postAction(built, session, "cancel", { target: built1.id });
      expect(refused.status).to.equal(409);
      expect(refused.text).to.include("was built or sent already");
      expect((await repos.transactions.find(built1.id))!.status).to.equal("queued");

      const done = await postAction(built, session, "cancel", { target: queued.id });
      expect(done.status).to.equal(200);
      const after = (await repos.transactions.find(queued.id))!;
      expect(after.status).to.equal("failed");
      expect(after.error!.code).to.equal("CANCELLED_BY_OPERATOR");
      expect(await spent()).to.equal(50_000n);
      // Final now: a second cancel is refused, and says why.
      const again = await postAction(built, session, "cancel", { target: queued.id });
      expect(again.status).to.equal(409);
      expect(again.text).to.include("is final already");
      const results = (await repos.console.recentActions(3)).map((a) => a.result);
      expect(results[0]).to.match(/^refused: /);
      expect(results[1]).to.equal("done");
    } finally {
      built.close();
    }
  });

  it("a worker that was building a request the operator cancelled records nothing and sends nothing (the race)", async () => {
    const { built, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: "raced", testMode: false });
      const { record } = await repos.transactions.create(newTx(app.id));
      const { record: other } = await repos.transactions.create(newTx(app.id));
      expect(
        await repos.transactions.cancelQueued(record.id, { code: "CANCELLED_BY_OPERATOR", message: "m" }),
      ).to.equal("cancelled");
      const bundle = {
        chain: "localhost",
        relayer: "0x00000000000000000000000000000000000000cc",
        nonce: 0,
        txHash: `0x${"11".repeat(32)}`,
        rawTx: "0x",
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      };
      const ops = [
        { txId: other.id, safeTx: undefined },
        { txId: record.id, safeTx: undefined },
      ];
      let error: unknown;
      await repos.transactions.recordBundle(bundle, ops).catch((e: unknown) => (error = e));
      // The domain's error, which both bundlers catch to leave that request and go on (not a failed step).
      expect(error).to.be.instanceOf(RequestClosedError);
      expect((error as RequestClosedError).txId).to.equal(record.id);
      // Rolled back whole: no bundle to broadcast, the other request still queued for the next step.
      expect(await repos.transactions.pendingBundles("localhost")).to.deep.equal([]);
      expect((await repos.transactions.find(other.id))!.status).to.equal("queued");
      expect((await repos.transactions.find(record.id))!.status).to.equal("failed");
      // The external bundler's recording, one operation at a time: refused alike, the request left as it was.
      const submitted = repos.transactions.markSubmitted(userOpOf(record.id));
      await submitted.then(
        () => expect.fail("recorded"),
        (e: unknown) => expect(e).to.be.instanceOf(RequestClosedError),
      );
      expect((await repos.transactions.find(record.id))!.error!.code).to.equal("CANCELLED_BY_OPERATOR");
    } finally {
      built.close();
    }
  });

  it("a chart page loads no more JS and CSS than the bundle budget, all served by the service itself", async () => {
    const { built, get, repos } = await setup();
    try {
      const { app } = await repos.apps.create({ name: "charted", testMode: true });
      const page = (await get(`/console/apps/${app.id}`)).text;
      const assets = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets).to.have.members([
        "/console/assets/console.css",
        "/console/assets/uPlot.min.css",
        "/console/assets/uPlot.iife.min.js",
        "/console/assets/console.js",
      ]);
      expect(page).not.to.match(/(?:src|href)="(?:https?:)?\/\//);
      let bytes = 0;
      for (const asset of assets) {
        const res = await get(asset);
        expect(res.status, asset).to.equal(200);
        bytes += Buffer.byteLength(res.text);
      }
      expect(bytes).to.be.at.most(CONSOLE_BUNDLE_BUDGET_BYTES);
    } finally {
      built.close();
    }
  });
});
