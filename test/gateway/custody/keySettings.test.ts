import { expect } from "chai";
import { PRODUCTION_ENV, configRefusal } from "../../helpers/productionConfig";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../../gateway/config/load";
import { createEnvKeySigner } from "../../../gateway/custody/envKey";
import { type SignatureRecord, auditedSigner } from "../../../gateway/custody/keySigner";
import { keyReference, loadServiceKeys } from "../../../gateway/custody/serviceKeys";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const OTHER = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const PRODUCTION = { ...PRODUCTION_ENV };
const PKCS11 =
  "pkcs11:token=idwallet;object=wallet?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=file:/run/pin";

const refusal = configRefusal;

describe("custody key settings", () => {
  it("refuses raw keys on a deployment that serves a real chain, naming them, unless RAW_KEYS_ALLOWED", () => {
    const message = refusal({ ...PRODUCTION, WALLET_SIGNER_KEY: KEY, RELAYER_SIGNER_KEY: OTHER });
    expect(message).to.include(
      "WALLET_SIGNER_KEY: raw keys in the environment (WALLET_SIGNER_KEY, RELAYER_SIGNER_KEY)",
    );
    expect(message).not.to.include(KEY.slice(2, 12));
    expect(refusal({ ...PRODUCTION, WALLET_SIGNER_KEY: KEY, RAW_KEYS_ALLOWED: "true" })).to.equal(undefined);
    expect(refusal({ ...PRODUCTION, WALLET_SIGNER_KEY: KEY, TEST_DEPLOYMENT: "true" })).to.equal(undefined);
    expect(
      refusal({ ...PRODUCTION, RPC_URL_MATIC: "", RPC_URL_LOCALHOST: "http://127.0.0.1:8545", WALLET_SIGNER_KEY: KEY }),
    ).to.equal(undefined);
  });

  it("refuses a transaction key on a deployment that serves a real chain without AUDIT_LOG_KEY, whose log a database thief could rewrite", () => {
    const { AUDIT_LOG_KEY: _key, ...keyless } = PRODUCTION;
    expect(refusal({ ...keyless, WALLET_SIGNER: PKCS11 })).to.include(
      "AUDIT_LOG_KEY: WALLET_SIGNER signs for real chains: set AUDIT_LOG_KEY",
    );
    expect(refusal({ ...keyless, WALLET_SIGNER: PKCS11, TEST_DEPLOYMENT: "true" })).to.equal(undefined);
    // No transaction key, nothing signed to log: the key is not asked for.
    expect(refusal(keyless)).to.equal(undefined);
    expect(refusal({ ...PRODUCTION, WALLET_SIGNER: PKCS11, AUDIT_LOG_KEY: "too short" })).to.include(
      "AUDIT_LOG_KEY: 32 random bytes",
    );
  });

  it("refuses raw keys on a deployment with no chain at all: its EIP-1271 and ENS answers hold on every real chain", () => {
    const signingOnly = { ...PRODUCTION, RPC_URL_MATIC: "", WALLET_SIGNER_KEY: KEY };
    expect(refusal(signingOnly)).to.include("WALLET_SIGNER_KEY: raw keys in the environment (WALLET_SIGNER_KEY)");
    expect(refusal({ ...signingOnly, RAW_KEYS_ALLOWED: "true" })).to.equal(undefined);
    expect(refusal({ ...signingOnly, TEST_DEPLOYMENT: "true" })).to.equal(undefined);
  });

  it("takes a key in custody on a real chain, and refuses it beside a raw copy of the same key", () => {
    expect(refusal({ ...PRODUCTION, WALLET_SIGNER: PKCS11 })).to.equal(undefined);
    expect(
      refusal({ ...PRODUCTION, WALLET_SIGNER: PKCS11, WALLET_SIGNER_KEY: KEY, RAW_KEYS_ALLOWED: "true" }),
    ).to.include(
      "WALLET_SIGNER_KEY: WALLET_SIGNER names a key in custody; remove WALLET_SIGNER_KEY from the environment",
    );
    expect(refusal({ ...PRODUCTION, SPONSOR_SIGNER: "env", TEST_DEPLOYMENT: "true" })).to.include(
      "SPONSOR_SIGNER_KEY: SPONSOR_SIGNER=env needs SPONSOR_SIGNER_KEY",
    );
    expect(refusal({ ...PRODUCTION, RELAYER_SIGNER: "vault:relayer" })).to.include(
      "RELAYER_SIGNER: pkcs11:<RFC 7512 URI>",
    );
  });

  it("never quotes a key from a CONFIG_FILE that is not JSON", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-config-"));
    try {
      for (const text of [`{"walletSignerKey": ${KEY.slice(2)}}`, `WALLET_SIGNER_KEY=${KEY}\n`]) {
        const file = path.join(dir, "config.json");
        writeFileSync(file, text);
        const message = refusal({ ...PRODUCTION, CONFIG_FILE: file })!;
        expect(message).to.match(/^CONFIG_FILE .*config\.json: not valid JSON/);
        expect(message).to.not.include(KEY.slice(2, 8)).and.not.include("WALLET_SIG");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads each key's reference: the reference setting first, else the raw key, with PKCS11_MODULE as the default module", () => {
    const config = loadConfig({
      ...PRODUCTION,
      WALLET_SIGNER: "pkcs11:token=idwallet;object=wallet?pin-source=file:/run/pin",
      PKCS11_MODULE: "/usr/lib/softhsm/libsofthsm2.so",
      SPONSOR_SIGNER: "env",
      SPONSOR_SIGNER_KEY: KEY,
      RAW_KEYS_ALLOWED: "true",
    });
    expect(keyReference(config, "walletSigner")).to.include({
      kind: "pkcs11",
      setting: "WALLET_SIGNER",
      token: "idwallet",
      object: "wallet",
      modulePath: "/usr/lib/softhsm/libsofthsm2.so",
    });
    expect(keyReference(config, "sponsorSigner")).to.include({ kind: "env", setting: "SPONSOR_SIGNER_KEY" });
    expect(keyReference(config, "relayer")).to.equal(undefined);
  });

  it("warns at start-up for each raw key a real deployment runs with, and logs every signature before returning it", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const config = loadConfig({
      ...PRODUCTION,
      WALLET_SIGNER_KEY: KEY,
      RELAYER_SIGNER_KEY: OTHER,
      RAW_KEYS_ALLOWED: "true",
    });
    const records: SignatureRecord[] = [];
    const keys = await loadServiceKeys(config, { record: async (entry) => void records.push(entry) }, logger);
    expect(lines.map((line) => JSON.parse(line).setting)).to.deep.equal(["WALLET_SIGNER_KEY", "RELAYER_SIGNER_KEY"]);
    expect(Object.keys(keys.signers)).to.deep.equal(["walletSigner", "relayer"]);
    const digest = new Uint8Array(32).fill(7);
    const signature = await keys.signers.walletSigner!.sign(digest, {
      purpose: "eip1271",
      appId: "a",
      userId: "tel:1",
    });
    expect(records).to.deep.equal([
      {
        purpose: "eip1271",
        appId: "a",
        userId: "tel:1",
        signer: keys.addresses.walletSigner,
        digest: `0x${"07".repeat(32)}`,
        signature,
      },
    ]);
    await keys.close();
  });

  it("never returns a signature whose record failed", async () => {
    const signer = auditedSigner(createEnvKeySigner(KEY, "test key"), {
      record: async () => {
        throw new Error("disk full");
      },
    });
    const outcome = await signer.sign(new Uint8Array(32), { purpose: "relayerTransaction" }).catch((e: Error) => e);
    expect(outcome).to.be.instanceOf(Error).with.property("message", "disk full");
  });
});
