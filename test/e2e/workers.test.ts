import { expect } from "chai";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import golden from "../vectors/addresses.json";

interface LogLine {
  msg?: string;
  pid?: number;
  worker?: number;
  url?: string;
  workers?: number;
}

/** Starts `npm run serve`'s entry with WORKERS=2 on a free port; yields its JSON log lines. */
function startService(): {
  child: ChildProcess;
  lines: LogLine[];
  waitFor: (p: (l: LogLine) => boolean) => Promise<LogLine>;
} {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-workers-"));
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "gateway/main.ts"], {
    env: {
      PATH: process.env.PATH ?? "",
      WORKERS: "2",
      PORT: "0",
      DATA_DIR: dataDir,
      AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters",
      CONTRACT_KERNEL_FACTORY: golden.kernelFactory,
      CONTRACT_BASE_FACTORY: golden.baseFactory,
      // Its SMS go to the outbox file, which only a test deployment may use.
      TEST_DEPLOYMENT: "true",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: LogLine[] = [];
  const waiters: { test: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = JSON.parse(text) as LogLine;
    lines.push(line);
    for (const w of waiters.filter((w) => w.test(line))) w.resolve(line);
  });
  const waitFor = (test: (l: LogLine) => boolean) =>
    new Promise<LogLine>((resolve) => {
      const seen = lines.find(test);
      if (seen) resolve(seen);
      else waiters.push({ test, resolve });
    });
  return { child, lines, waitFor };
}

const resolveAlice = (url: string) =>
  fetch(`${url}/v1/resolver`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ userIds: "github:alice" }),
  });

describe("Several worker processes (WORKERS=2)", function () {
  this.timeout(60_000);

  it("serves on one port and replaces a worker that dies", async () => {
    const { child, waitFor } = startService();
    try {
      const primary = await waitFor((l) => l.msg === "idwallet listening" && l.workers === 2);
      expect((await resolveAlice(primary.url!)).status).to.equal(200);

      const victim = await waitFor((l) => l.msg === "idwallet listening" && l.worker === 1);
      process.kill(victim.pid!, "SIGKILL");
      await waitFor((l) => l.msg === "worker died; starting another");
      await waitFor((l) => l.msg === "idwallet listening" && l.worker === 3);
      for (let i = 0; i < 10; i++) expect((await resolveAlice(primary.url!)).status).to.equal(200);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
