import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTestStack } from "../helpers/localStack";

const ROOT = path.join(__dirname, "..", "..");

/** The README's walkthrough block, as a user copies it. */
function walkthroughBlock(): string {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const block = /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, "the README's walkthrough block").to.be.a("string");
  return block!;
}

/** What one run of the block printed and how it ended. */
interface Run {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the block as pasted into a plain bash (no `-e` of the test's own: the block must stop itself), asynchronously:
 * the stack serves from this process, so blocking it would leave curl without answers.
 */
function runWalkthrough(block: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["--noprofile", "--norc", "-c", block],
      { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: "utf8", timeout: 80_000 },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ exitCode, stdout, stderr });
      },
    );
  });
}

const nonEmptyLines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/** A run that worked (all four steps), or stopped at step 2 on the resend cooldown, readably and with the wait. */
function expectWorksOrCoolsDown(run: Run): void {
  if (run.exitCode === 0) {
    expect(nonEmptyLines(run.stdout)).to.have.length(4);
    return;
  }
  expect(run.stderr).to.match(/^step 2 failed: POST \/functions\/v1\/signInWithOTP answered 429 OTP_COOLDOWN: /m);
  expect(run.stderr).to.match(/A code was sent to this number \d+ s ago and still works/);
  expect(run.stderr).to.match(/^Wait \d+ s \(its Retry-After\), then run the walkthrough again\.$/m);
  expect(run.stderr).to.not.match(/SyntaxError|Unexpected end of JSON/);
  // Step 1's answer, then step 2's nothing: no batch, no address.
  expect(nonEmptyLines(run.stdout)).to.have.length(1);
}

describe("README: five minutes with it (e2e: the walk-through run as written against the local stack)", () => {
  it("resolves an id, logs its phone in, sends a gasless batch and resolves its ENS name to the same address; again at once, it works or stops at step 2 saying how long to wait; with a wrong DATA_DIR it names the missing outbox", async function () {
    this.timeout(180_000);
    const block = walkthroughBlock();
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-walkthrough-"));
    const stack = await startTestStack(dataDir);
    try {
      const env = {
        API: stack.apiUrl,
        RPC: stack.rpcUrl,
        DATA_DIR: dataDir,
        CLIENT_ID: stack.demoApp.clientId,
        CLIENT_SECRET: stack.demoApp.clientSecret,
      };
      const first = await runWalkthrough(block, env);
      expect(first, first.stderr).to.include({ exitCode: 0 });
      const lines = nonEmptyLines(first.stdout);
      const resolved = JSON.parse(lines[0]!) as { users: { userId: string; accountAddress: string }[] };
      const wallet = resolved.users.find((user) => user.userId === "tel:14155552671")!.accountAddress;
      expect(JSON.parse(lines[1]!)).to.include({ message: "Code sent" });
      const final = JSON.parse(lines[2]!) as Record<string, unknown>;
      expect(final).to.include({ status: "included", success: true, userId: "tel:14155552671", sender: wallet });
      // The ENS name, resolved by ethers through the registry, the resolver and the gateway: the same wallet.
      expect(lines[3]).to.equal(wallet);
      expect(lines).to.have.length(4);

      // At once again: the first run's code was used, so no resend cooldown holds; a run either works or stops at
      // step 2 with the problem's detail and how long to wait, printing nothing of step 3.
      expectWorksOrCoolsDown(await runWalkthrough(block, env));

      // A DATA_DIR that is not the stack's: the run names the outbox step 2 lacks and the setting to change, whether
      // the directory exists (checked once the code is sent) or not (checked before any request).
      for (const elsewhere of [mkdtempSync(path.join(tmpdir(), "idwallet-not-the-stack-")), `${dataDir}-nowhere`]) {
        const wrong = await runWalkthrough(block, { ...env, DATA_DIR: elsewhere });
        expect(wrong.exitCode, wrong.stderr).to.not.equal(0);
        expect(wrong.stderr.trim()).to.equal(
          `step 2 needs the SMS outbox ${elsewhere}/sms-outbox.jsonl, which is missing: set DATA_DIR to npm start's (its banner says)`,
        );
        expect(wrong.stdout).to.not.include('"status"');
      }

      // The run in the existing wrong directory had a code sent that nobody used: the number now waits out its
      // cooldown, and the walkthrough says so, with the seconds of the problem's Retry-After.
      const cooling = await runWalkthrough(block, env);
      expect(cooling.exitCode).to.not.equal(0);
      expectWorksOrCoolsDown(cooling);
    } finally {
      await stack.close();
    }
  });
});
