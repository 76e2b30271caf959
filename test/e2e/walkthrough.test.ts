import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startTestStack } from "../helpers/localStack";

const ROOT = path.join(__dirname, "..", "..");

describe("README: five minutes with it (e2e: the walk-through run as written against the local stack)", () => {
  it("resolves an id, logs its phone in, sends a gasless batch and resolves its ENS name to the same address", async function () {
    this.timeout(90_000);
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const block = /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "the README's walkthrough block").to.be.a("string");
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-walkthrough-"));
    const stack = await startTestStack(dataDir);
    try {
      // Asynchronously: the stack serves from this process, so blocking it would leave curl without answers.
      const run = await promisify(execFile)("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", block!], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          API: stack.apiUrl,
          RPC: stack.rpcUrl,
          DATA: dataDir,
          CLIENT_ID: stack.demoApp.clientId,
          CLIENT_SECRET: stack.demoApp.clientSecret,
        },
        encoding: "utf8",
        timeout: 80_000,
      });
      const lines = run.stdout.split("\n").filter((line) => line.trim() !== "");
      const resolved = JSON.parse(lines[0]!) as { users: { userId: string; accountAddress: string }[] };
      const wallet = resolved.users.find((user) => user.userId === "tel:14155552671")!.accountAddress;
      expect(JSON.parse(lines[1]!)).to.include({ message: "Code sent" });
      const final = JSON.parse(lines[2]!) as Record<string, unknown>;
      expect(final).to.include({ status: "included", success: true, userId: "tel:14155552671", sender: wallet });
      // The ENS name, resolved by ethers through the registry, the resolver and the gateway: the same wallet.
      expect(lines[3]).to.equal(wallet);
      expect(lines).to.have.length(4);
    } finally {
      await stack.close();
    }
  });
});
