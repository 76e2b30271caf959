import { expect } from "chai";
import { mkdirSync } from "node:fs";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { demoTransaction } from "../../scripts/localStack/banner";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken } from "../helpers/stackClients";
import { postJson } from "../helpers/http";
import { onPostgres } from "../helpers/testDatabase";

import { DEMO_APP_NAME as DEMO } from "../../scripts/localStack/demoApp";

const CONSOLE_TOKEN = "e2e-console-token-0123456789abcdefghijkl";
const EXPLORER = "https://explorer.invalid";
/** Where the screenshots go: one folder per database lane (gitignored). */
const SHOTS = path.join(__dirname, "..", "..", "test-output", "console", onPostgres() ? "postgres" : "sqlite");

/** Polls `check` until it holds or `ms` pass. */
async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("Operator console in a real headless Chromium against the local stack (e2e, issue 38)", function () {
  this.timeout(180_000);
  let stack: LocalStack;
  let browser: Browser;
  let page: Page;
  const text = (selector: string) => page.$eval(selector, (el) => el.textContent ?? "");
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  /** Submits the form around `button`, then confirms on the confirmation page; returns the result's text. */
  const confirmAction = async (button: string): Promise<string> => {
    await Promise.all([page.waitForNavigation(), page.click(button)]);
    await Promise.all([page.waitForNavigation(), page.click("#confirm")]);
    return text("#result");
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startTestStack(undefined, { env: { CONSOLE_TOKEN, EXPLORER_URL_LOCALHOST: EXPLORER } });
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("logs in, finds a transaction it just sent included, switches maintenance, disables an app", async () => {
    // Without a session: the login form, 401.
    const first = await page.goto(`${stack.apiUrl}/console`);
    expect(first!.status()).to.equal(401);
    await page.type("input[name=token]", CONSOLE_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click("#token-login button")]);
    expect(page.url(), await page.content()).to.equal(`${stack.apiUrl}/console`);

    // A transaction of the demo app, sent now and waited for.
    const token = await demoAppToken(stack);
    const accepted = await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token);
    expect(accepted.status).to.equal(202);
    const id = String(accepted.body.id);
    const final = await fetch(`${stack.apiUrl}/v1/kernel/tx/${id}?wait=true`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then((res) => res.json() as Promise<{ status: string }>);
    expect(final.status).to.equal("included");

    // The overview: the local chain, reachable, with its relayer's funds.
    await page.reload();
    const chains = await text("#chains");
    expect(chains).to.include("localhost").and.include("reachable").and.include("relayer balance");
    await shot("overview");

    // The chain: its bundle carrying the request, the chart drawn by uPlot.
    await Promise.all([page.waitForNavigation(), page.click("#chains a[href='/console/chains/localhost']")]);
    expect(await text("#bundles")).to.include(id);
    await page.waitForSelector(".chart canvas");
    await shot("chain");

    // Found by its id, and included.
    await page.goto(`${stack.apiUrl}/console/requests`);
    await page.type("#request-search input[name=q]", id);
    await Promise.all([page.waitForNavigation(), page.click("#request-search button")]);
    await Promise.all([page.waitForNavigation(), page.click(`a[href='/console/requests/${id}']`)]);
    expect(await text("#status")).to.include("included");
    expect(await text("#bundle")).to.include("mined");
    // Its transaction, linked to the chain's explorer (EXPLORER_URL_LOCALHOST).
    const txLink = await page.$eval(`#request a[href^='${EXPLORER}/tx/0x']`, (a) => a.getAttribute("href"));
    expect(txLink).to.match(/\/tx\/0x[0-9a-f]{64}$/);
    await shot("request");

    // Maintenance on: the API answers 503; off again: it answers.
    await page.goto(`${stack.apiUrl}/console`);
    await page.type("#maintenance input[name=message]", "Console e2e");
    expect(await confirmAction("#maintenance button")).to.equal("Maintenance is on.");
    const resolve = () => postJson(`${stack.apiUrl}/v1/resolver`, { userIds: "github:console-e2e" });
    await until(async () => (await resolve()).status === 503, "maintenance on");
    await page.goto(`${stack.apiUrl}/console`);
    expect(await text("#maintenance"))
      .to.include("on")
      .and.include("Console e2e");
    await shot("maintenance");
    expect(await confirmAction("#maintenance button")).to.equal("Maintenance is off.");
    await until(async () => (await resolve()).status === 200, "maintenance off");

    // The apps, and the demo app disabled: its next request is refused.
    await page.goto(`${stack.apiUrl}/console/apps`);
    await shot("apps");
    const href = await page.$$eval(
      "#apps a",
      (links, name) => links.find((a) => a.textContent === name)?.getAttribute("href"),
      DEMO,
    );
    expect(href).to.match(/^\/console\/apps\/app_/);
    await Promise.all([page.waitForNavigation(), page.click(`a[href='${href!}']`)]);
    await page.waitForSelector(".chart canvas");
    await shot("app");
    expect(await confirmAction("#app-settings button")).to.match(/^Disabled app /);
    const refused = await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token);
    expect(refused.status).to.equal(401);
    expect(refused.body.code).to.equal("APP_DISABLED");

    await page.goto(`${stack.apiUrl}/console/webhooks`);
    await shot("webhooks");
    // Every action above is in the overview's log, under the session's label.
    await page.goto(`${stack.apiUrl}/console`);
    const actions = await text("#actions");
    expect(actions).to.include("maintenance on").and.include("maintenance off").and.include("app disable");
    expect(actions).to.include("console token");
  });
});
