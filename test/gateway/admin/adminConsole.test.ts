import { expect } from "chai";
import { parseAdminArgs } from "../../../scripts/admin/args";
import { EXIT, runAdminCommand, type AdminOutput } from "../../../scripts/admin/commands";
import { loadAdminSettings } from "../../../scripts/admin/adminSettings";
import { hashConsoleSecret } from "../../../gateway/console/consoleSecrets";
import { openTestStore, type TestStore } from "../storage/builders";
import { walletTx } from "../storage/contract/webhookFixtures";

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

describe("admin CLI: the operator console's commands, and the actions it shares with the console", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.database.close());

  /** Runs one command line under `env`'s settings; returns the exit code and what it wrote. */
  const run = async (line: string, env: Record<string, string> = {}) => {
    const parsed = parseAdminArgs(line.split(" "));
    if (!parsed.ok) return { code: EXIT.usage, out: "", err: parsed.error };
    const output = captureOutput();
    const context = { settings: loadAdminSettings(env), env };
    const code = await runAdminCommand(parsed.command, store.repos, output, store.clock.now, context);
    return { code, out: output.stdout.join("\n"), err: output.stderr.join("\n") };
  };

  it("console open prints a one-time link on PUBLIC_URL whose secret is stored only as its hash", async () => {
    const opened = await run("console open --label alice", {
      PUBLIC_URL: "https://ops.example/",
      CONSOLE_ENABLED: "true",
    });
    expect(opened.code).to.equal(EXIT.ok);
    const match = /^https:\/\/ops\.example\/console\/open\?link=([\w-]{43})$/.exec(opened.out);
    expect(match, opened.out).not.to.equal(null);
    expect(opened.err).to.include('as "alice"').and.not.include("not served");
    const stored = await store.database.db.selectFrom("console_links").selectAll().execute();
    expect(stored.map((row) => [row.token_hash, row.label])).to.deep.equal([[hashConsoleSecret(match![1]!), "alice"]]);
    expect(JSON.stringify(stored)).not.to.include(match![1]!);
    // Without the console turned on, the link is printed with the setting that serves it.
    expect((await run("console open")).err).to.include("CONSOLE_ENABLED=true");
    expect((await run("console actions --label x")).code).to.equal(EXIT.usage);
  });

  it("maintenance, app status and requests cancel run the shared actions, each in the action log as the CLI's", async () => {
    const { app } = await store.repos.apps.create({ name: "cli app" });
    expect((await run("maintenance on --message Back")).code).to.equal(EXIT.ok);
    expect((await run(`apps disable ${app.id}`)).code).to.equal(EXIT.ok);
    const { record } = await store.repos.transactions.create(walletTx(app.id));
    const cancelled = await run(`requests cancel ${record.id}`);
    expect(cancelled.code).to.equal(EXIT.ok);
    expect((await store.repos.transactions.find(record.id))!.error!.code).to.equal("CANCELLED_BY_OPERATOR");
    const again = await run(`requests cancel ${record.id}`);
    expect(again.code).to.equal(EXIT.failed);
    expect(again.err).to.equal(`Error: request ${record.id} is final already (included or failed)`);
    const log = (await run("console actions")).out.split("\n");
    expect(log.map((line) => line.split("  ").slice(1).join("  "))).to.deep.equal([
      `cli  request cancel ${record.id}: refused: request ${record.id} is final already (included or failed)`,
      `cli  request cancel ${record.id}: done`,
      `cli  app disable ${app.id}: done`,
      "cli  maintenance on service (Back): done",
    ]);
  });

  // A stolen cookie or link, answered: every session and unused link closed at once, in the action log.
  it("console close-sessions closes every open session and unused link, and says how many sessions were open", async () => {
    const now = store.clock.now();
    const later = new Date(now.getTime() + 3_600_000);
    await store.repos.console.openSession({ idHash: "a".repeat(64), label: "alice", expiresAt: later });
    await store.repos.console.openSession({ idHash: "b".repeat(64), label: "bob", expiresAt: later });
    expect((await run("console open --label carol")).code).to.equal(EXIT.ok);
    const closed = await run("console close-sessions");
    expect(closed.code).to.equal(EXIT.ok);
    expect(closed.out).to.equal("Closed 2 open console session(s) and every unused link.");
    expect(await store.repos.console.findSession("a".repeat(64), now)).to.equal(undefined);
    expect(await store.database.db.selectFrom("console_links").selectAll().execute()).to.deep.equal([]);
    const [logged] = await store.repos.console.recentActions(1);
    expect(logged).to.include({ who: "cli", action: "console close sessions", detail: "2 open", result: "done" });
    // A link may not pose as a token's session, whose label the service checks against the token.
    const posing = parseAdminArgs(["console", "open", "--label", "console token 12345678"]);
    expect(posing.ok).to.equal(false);
    expect(parseAdminArgs(["console", "open", "--label", "console-team"]).ok).to.equal(true);
  });
});
