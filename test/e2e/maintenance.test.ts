import { expect } from "chai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import golden from "../vectors/addresses.json";
import { loadConfig } from "../../gateway/config/load";
import { startServer } from "../../gateway/server";
import { runAdminCli } from "../../scripts/admin/cli";
import { databaseEnv, databaseSettings, serviceDatabase } from "../helpers/testDatabase";

const silentOutput = { out: () => undefined, err: () => undefined };

/** Polls `url` until it answers `status` or `ms` pass; returns the last response. */
async function waitForStatus(url: string, init: RequestInit, status: number, ms: number): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await fetch(url, init);
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("Maintenance switched by the admin CLI on a running server (e2e, real database)", () => {
  it("closes the API within the poll interval and reopens it, while /health stays up", async () => {
    const database = await serviceDatabase(mkdtempSync(path.join(tmpdir(), "idwallet-maint-")));
    const config = loadConfig(
      {},
      {
        port: 0,
        testDeployment: true,
        ...databaseSettings(database),
        auth: { tokenSecret: "a-token-secret-of-at-least-32-characters" },
        contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
      },
    );
    const server = await startServer(config, { logger: pino({ level: "silent" }) });
    const cli = (...argv: string[]) =>
      runAdminCli(argv, { env: databaseEnv(database), output: silentOutput, clock: () => new Date() });
    const resolve = {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ userIds: "github:alice" }),
    };
    try {
      expect((await fetch(`${server.url}/v1/resolver`, resolve)).status).to.equal(200);
      expect(await cli("maintenance", "on", "--message", "Back soon")).to.equal(0);
      const closed = await waitForStatus(`${server.url}/v1/resolver`, resolve, 503, 5000);
      expect(closed.status).to.equal(503);
      expect(closed.headers.get("retry-after")).to.equal("300");
      expect(((await closed.json()) as { detail: string }).detail).to.equal("Back soon");
      expect((await fetch(`${server.url}/health`)).status).to.equal(200);

      expect(await cli("maintenance", "off")).to.equal(0);
      expect((await waitForStatus(`${server.url}/v1/resolver`, resolve, 200, 5000)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});
