import { expect } from "chai";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { request } from "node:http";
import path from "node:path";
import readline from "node:readline";
import { Wallet } from "ethers";
import { TestTarget__factory } from "../../typechain-types";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { serviceRequests } from "../helpers/serviceRequests";
import golden from "../vectors/addresses.json";
import { databaseEnv, serviceDatabase } from "../helpers/testDatabase";

interface LogLine {
  msg?: string;
  pid?: number;
  worker?: number;
  url?: string;
  workers?: number;
  req?: { id: string; path: string };
  res?: { statusCode: number };
}

/** Starts `npm run serve`'s entry with WORKERS=2 on a free port (settings in `env` win); yields its JSON log lines. */
async function startService(env: Readonly<Record<string, string>> = {}): Promise<{
  child: ChildProcess;
  lines: LogLine[];
  waitFor: (p: (l: LogLine) => boolean) => Promise<LogLine>;
}> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-workers-"));
  const database = databaseEnv(await serviceDatabase(dataDir));
  const child = spawn(process.execPath, ["-r", "sucrase/register/ts", "gateway/main.ts"], {
    env: {
      PATH: process.env.PATH ?? "",
      ENV_FILE: "",
      WORKERS: "2",
      PORT: "0",
      DATA_DIR: dataDir,
      ...database,
      AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters",
      CONTRACT_KERNEL_FACTORY: golden.kernelFactory,
      CONTRACT_BASE_FACTORY: golden.baseFactory,
      // Its SMS go to the outbox file, which only a test deployment may use.
      TEST_DEPLOYMENT: "true",
      ...env,
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
    const { child, waitFor } = await startService();
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

  it("an accepted request wakes the primary's transaction worker, from a replaced worker too: included long before the next poll", async function () {
    this.timeout(120_000);
    const setup = await prepareServiceOnChain();
    // The worker loop polls every 30 s: only a wake from the HTTP worker that accepted a request starts it sooner.
    const { child, waitFor } = await startService({
      ...setup.env(setup.chain.rpcUrl, { TX_POLL_INTERVAL_MS: "30000", LOG_LEVEL: "info" }),
      WORKERS: "2",
    });
    try {
      const { url } = await waitFor((l) => l.msg === "idwallet listening" && l.workers === 2);
      const target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
      await target.waitForDeployment();
      const requests = serviceRequests(url!, setup.appToken, setup.userToken);
      /** POSTs on a connection of its own, so the cluster hands each request to the next worker in turn. */
      const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
        new Promise<{ status: number; body: { id: string; address: string; txUuid: string } }>((resolve, reject) => {
          const req = request(`${url}${route}`, {
            method: "POST",
            agent: false,
            headers: { "Content-Type": "application/json", Authorization: `Bearer ${setup.appToken}`, ...headers },
          });
          req.on("error", reject).on("response", (res) => {
            let text = "";
            res.on("data", (chunk: Buffer) => (text += chunk.toString()));
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          });
          req.end(JSON.stringify(body));
        });
      /** Fails unless `done` holds within 10 s, a third of the poll interval. */
      const within10s = async (done: () => Promise<boolean>) => {
        const start = Date.now();
        while (!(await done())) {
          if (Date.now() - start > 10_000) throw new Error("not picked up within 10 s: no wake reached the worker");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      let n = 0;
      /** Submits a wallet transaction and waits for it; returns the worker that accepted it. */
      const transaction = async () => {
        const user = `tel:141555501${String(++n).padStart(2, "0")}`;
        const reqId = `wake-test-${n}`;
        const accepted = await post(
          "/v1/kernel/tx",
          {
            userId: user,
            chain: "localhost",
            to: [await target.getAddress()],
            value: ["0"],
            data: [target.interface.encodeFunctionData("record", [n])],
            auth: await setup.userToken(user),
          },
          { "X-Request-Id": reqId },
        );
        expect(accepted.status).to.equal(202);
        await within10s(async () => (await requests.view(accepted.body.id)).status === "included");
        expect((await requests.view(accepted.body.id)).success).to.equal(true);
        return (await waitFor((l) => l.req?.id === reqId)).worker;
      };

      await transaction();
      const safe = await post("/v1/localhost/account", { signers: [Wallet.createRandom().address] });
      expect(safe.status).to.equal(202);
      await within10s(async () => {
        const res = await fetch(`${url}/v1/localhost/account/${safe.body.address}/tx/${safe.body.txUuid}`, {
          headers: { Authorization: `Bearer ${setup.appToken}` },
        });
        return ((await res.json()) as { status: string }).status === "included";
      });

      // The primary replaces a worker that dies; the replacement's wakes reach the loop as well.
      const victim = await waitFor((l) => l.msg === "idwallet listening" && l.worker === 1);
      process.kill(victim.pid!, "SIGKILL");
      await waitFor((l) => l.msg === "idwallet listening" && l.worker === 3);
      const acceptedBy = new Set<number | undefined>();
      while (!acceptedBy.has(3) && n < 10) acceptedBy.add(await transaction());
      expect(acceptedBy).to.include(3);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await setup.chain.close();
    }
  });
});
