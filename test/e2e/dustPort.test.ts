import { expect } from "chai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import golden from "../vectors/addresses.json";
import { loadConfig } from "../../gateway/config/load";
import { startServer } from "../../gateway/server";
import { databaseSettings, serviceDatabase } from "../helpers/testDatabase";

describe("Dust interface on its own port ({dust_base_url}; e2e: real HTTP, its database)", () => {
  it("serves /api/* there, and nothing else, besides the main port", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-dust-"));
    const config = loadConfig(
      {},
      {
        port: 0,
        testDeployment: true,
        dataDir,
        ...databaseSettings(await serviceDatabase(dataDir)),
        dust: { port: 0 },
        auth: { tokenSecret: "a-token-secret-of-at-least-32-characters" },
        contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
      },
    );
    const server = await startServer(config, { logger: pino({ level: "silent" }) });
    try {
      expect(server.dustUrl).to.be.a("string").and.not.equal(server.url);
      for (const base of [server.dustUrl!, server.url]) {
        const orders = await fetch(`${base}/api/orders`);
        expect([orders.status, await orders.json()]).to.deep.equal([200, []]);
      }
      const elsewhere = await fetch(`${server.dustUrl}/v1/networks`);
      expect(elsewhere.status).to.equal(404);
      // DUST_CHAIN defaults to eth, which this deployment has no RPC for.
      const wallet = await fetch(`${server.dustUrl}/api/0x000000000000000000000000000000000000dEaD`);
      expect([wallet.status, ((await wallet.json()) as { code: string }).code]).to.deep.equal([
        400,
        "CHAIN_NOT_AVAILABLE",
      ]);
    } finally {
      await server.close();
    }
  });
});
