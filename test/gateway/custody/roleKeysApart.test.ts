import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { computeAddress, encryptKeystoreJson } from "ethers";
import pino from "pino";
import { type ChainNode, startChainNode } from "../../../scripts/localStack/chainNode";
import { loadConfig } from "../../../gateway/config/load";
import { startServer } from "../../../gateway/server";
import { PRODUCTION_ENV } from "../../helpers/productionConfig";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const OTHER = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const THIRD = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
// Far below a real keystore's N = 2^17: the test checks which key a file holds, not the work factor.
const FAST_SCRYPT = { scrypt: { N: 1 << 10 } };
const PASSWORD = "correct horse battery staple";

/** What startServer does with `env` on a test deployment serving no chain: undefined when it starts, else the error. */
async function startRefusal(dir: string, env: Record<string, string>): Promise<Error | undefined> {
  const config = loadConfig({
    ...PRODUCTION_ENV,
    RPC_URL_MATIC: "",
    TEST_DEPLOYMENT: "true",
    PORT: "0",
    DATABASE_PATH: path.join(dir, "idwallet.sqlite"),
    ...env,
  });
  return startServer(config, { logger: pino({ level: "silent" }) }).then(
    (server) => server.close().then(() => undefined),
    (error: unknown) => error as Error,
  );
}

describe("custody: each role has a key of its own (one stolen hot key gives one role's powers only)", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-roles-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("an operator configures one key for the relayer and the wallet signer: start-up refuses, naming both roles", async () => {
    const refused = await startRefusal(dir, {
      WALLET_SIGNER_KEY: KEY,
      RELAYER_SIGNER_KEY: KEY,
      SPONSOR_SIGNER_KEY: OTHER,
    });
    expect(refused).to.be.instanceOf(Error);
    expect(refused!.message).to.equal(
      `custody: WALLET_SIGNER and RELAYER_SIGNER are one key (${computeAddress(KEY)}); give each role a key of its ` +
        "own, so that a stolen key gives only what its role can (docs/keys-and-custody.md)",
    );
    // A key per role starts.
    expect(
      await startRefusal(dir, { WALLET_SIGNER_KEY: KEY, RELAYER_SIGNER_KEY: OTHER, SPONSOR_SIGNER_KEY: THIRD }),
    ).to.equal(undefined);
  });

  it("an operator points two keystore references of different files at one key (sponsor signer and Safe operator): start-up refuses, naming both", async () => {
    const keystore = async (name: string, privateKey: string) => {
      const file = path.join(dir, name);
      const json = await encryptKeystoreJson(
        { address: computeAddress(privateKey), privateKey },
        PASSWORD,
        FAST_SCRYPT,
      );
      writeFileSync(file, json, { mode: 0o600 });
      return `keystore:${file}?password-file=${path.join(dir, "password")}`;
    };
    writeFileSync(path.join(dir, "password"), PASSWORD, { mode: 0o600 });
    const refused = await startRefusal(dir, {
      WALLET_SIGNER: await keystore("wallet.json", KEY),
      SPONSOR_SIGNER: await keystore("sponsor.json", OTHER),
      SAFE_OPERATOR_SIGNER: await keystore("operator-copy-of-sponsor.json", OTHER),
    });
    expect(refused).to.be.instanceOf(Error);
    expect(refused!.message).to.equal(
      `custody: SPONSOR_SIGNER and SAFE_OPERATOR_SIGNER are one key (${computeAddress(OTHER)}); give each role a ` +
        "key of its own, so that a stolen key gives only what its role can (docs/keys-and-custody.md)",
    );
  });

  it("a rotation's previous Safe operator is the Safe operator's role: it may be the same key, not another role's", async () => {
    const operator = { SAFE_OPERATOR_SIGNER_KEY: OTHER, RELAYER_SIGNER_KEY: THIRD };
    expect(await startRefusal(dir, { ...operator, SAFE_OPERATOR_PREVIOUS_SIGNER_KEY: OTHER })).to.equal(undefined);
    const refused = await startRefusal(dir, { ...operator, SAFE_OPERATOR_PREVIOUS_SIGNER_KEY: THIRD });
    expect(refused?.message).to.match(
      new RegExp(
        `^custody: RELAYER_SIGNER and SAFE_OPERATOR_PREVIOUS_SIGNER are one key \\(${computeAddress(THIRD)}\\)`,
      ),
    );
  });

  describe("on the local chain only (the local stack, development)", () => {
    let chain: ChainNode;
    before(async () => {
      chain = await startChainNode("127.0.0.1", 0);
    });
    after(() => chain.close());

    it("starts with one key in several roles: nothing real is at stake there", async () => {
      expect(
        await startRefusal(dir, { RPC_URL_LOCALHOST: chain.rpcUrl, WALLET_SIGNER_KEY: KEY, RELAYER_SIGNER_KEY: KEY }),
      ).to.equal(undefined);
    });
  });

  it("a cluster's primary, which holds the keys and runs the transaction workers, refuses one key in two roles itself, before forking a worker", async () => {
    const env = {
      ...PRODUCTION_ENV,
      RPC_URL_MATIC: "",
      TEST_DEPLOYMENT: "true",
      PORT: "0",
      WORKERS: "2",
      DATABASE_PATH: path.join(dir, "cluster.sqlite"),
      WALLET_SIGNER_KEY: KEY,
      RELAYER_SIGNER_KEY: KEY,
      SPONSOR_SIGNER_KEY: OTHER,
      PATH: process.env.PATH ?? "",
      ENV_FILE: "",
    };
    const main = path.join(__dirname, "..", "..", "..", "gateway", "main.ts");
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["-r", "sucrase/register/ts", main],
        { env, timeout: 60_000 },
        (e, o, err) => resolve({ code: child.exitCode, output: `${o}${err}` }),
      );
    });
    expect(code).to.equal(1);
    expect(output).to.contain("custody: WALLET_SIGNER and RELAYER_SIGNER are one key");
    // The primary said it, not a worker it forked and then lost.
    expect(output).to.not.contain("worker");
  });
});
