import { expect } from "chai";
import { PRODUCTION_ENV, configRefusal } from "../../helpers/productionConfig";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../../gateway/config/load";
import { startServer } from "../../../gateway/server";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const OTHER = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const PRODUCTION = { ...PRODUCTION_ENV, PKCS11_MODULE: "/usr/lib/softhsm/libsofthsm2.so" };
const onToken = (token: string, object: string) =>
  `pkcs11:token=${token};object=${object}?pin-source=file:/run/${token}.pin`;

const refusal = configRefusal;

describe("custody: the ENS gateway's key stays apart from the transaction keys (it lives in every HTTP worker)", () => {
  it("refuses, with WORKERS > 1, a CCIP_SIGNER on the token of a transaction key: its PIN would open that key too", () => {
    const cluster = { ...PRODUCTION, WORKERS: "4", WALLET_SIGNER: onToken("idwallet", "wallet") };
    expect(refusal({ ...cluster, CCIP_SIGNER: onToken("idwallet", "ccip") })).to.include(
      "CCIP_SIGNER: with WORKERS > 1, put the CCIP signer on a token of its own: every HTTP worker logs in to its token, which holds WALLET_SIGNER's key too",
    );
    // Another module's token of the same label is another token; so is another label; one process holds every key.
    expect(refusal({ ...cluster, CCIP_SIGNER: onToken("idwallet-ens", "ccip") })).to.equal(undefined);
    expect(
      refusal({ ...cluster, CCIP_SIGNER: `${onToken("idwallet", "ccip")}&module-path=/opt/cloudhsm/lib/libpkcs11.so` }),
    ).to.equal(undefined);
    expect(refusal({ ...cluster, WORKERS: "1", CCIP_SIGNER: onToken("idwallet", "ccip") })).to.equal(undefined);
  });

  it("refuses to start with a transaction key as the CCIP signer: workers would hold it, its answers go unlogged", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-ccip-"));
    const config = (ccipKey: string) =>
      loadConfig({
        ...PRODUCTION,
        RPC_URL_MATIC: "",
        TEST_DEPLOYMENT: "true",
        PORT: "0",
        DATABASE_PATH: path.join(dir, "idwallet.sqlite"),
        WALLET_SIGNER_KEY: KEY,
        CCIP_SIGNER_KEYS: ccipKey,
      });
    try {
      const refused = await startServer(config(KEY), { logger: pino({ level: "silent" }) }).then(
        (server) => server.close().then(() => undefined),
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(Error);
      expect((refused as Error).message).to.equal(
        "CCIP_SIGNER: the CCIP signer is WALLET_SIGNER's key; give the ENS gateway a key of its own (every HTTP worker holds it, and its signatures are not logged)",
      );
      const server = await startServer(config(OTHER), { logger: pino({ level: "silent" }) });
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
