import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  computeAddress,
  encryptKeystoreJson,
  hexlify,
  keccak256,
  randomBytes,
  recoverAddress,
  toUtf8Bytes,
} from "ethers";
import { CustodyError, type CustodySigner, loadSigner, parseSignerReference } from "../../../gateway/custody";
import { createDigestSigner } from "../../../gateway/crypto/digestSigner";

const PRIVATE_KEY = keccak256(toUtf8Bytes("custody keystore test key"));
const PASSWORD = "correct horse battery staple";
// Far below a real keystore's N = 2^17: the tests check the format, not the work factor.
const FAST_SCRYPT = { scrypt: { N: 1 << 10 } };

describe("custody: keystore and raw-key signers", () => {
  let dir: string;
  let keystoreFile: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-keystore-"));
    keystoreFile = path.join(dir, "relayer.json");
    const json = await encryptKeystoreJson(
      { address: computeAddress(PRIVATE_KEY), privateKey: PRIVATE_KEY },
      PASSWORD,
      FAST_SCRYPT,
    );
    writeFileSync(keystoreFile, json, { mode: 0o600 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A password file holding `text`. */
  const passwordFile = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const load = (value: string): Promise<CustodySigner> => loadSigner(parseSignerReference("RELAYER_SIGNER_KEY", value));
  const refusal = async (value: string): Promise<string> => {
    const error = await load(value).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CustodyError);
    return (error as Error).message;
  };

  it("decrypts a keystore with the password from its file (trailing newline dropped) and signs for its address", async () => {
    const signer = await load(`keystore:${keystoreFile}?password-file=${passwordFile("password", `${PASSWORD}\n`)}`);
    expect(signer.address).to.equal(computeAddress(PRIVATE_KEY));
    expect(signer.description).to.equal(`keystore:${keystoreFile}`);
    const digest = randomBytes(32);
    expect(recoverAddress(hexlify(digest), await signer.sign(digest))).to.equal(signer.address);
  });

  it("refuses a wrong password, without quoting either password", async () => {
    const file = passwordFile("wrong", "Tr0ub4dor&3\n");
    const message = await refusal(`keystore:${keystoreFile}?password-file=${file}`);
    expect(message).to.equal(`keystore:${keystoreFile}: the password in ${file} does not open it`);
    expect(message).to.not.include("Tr0ub4dor").and.not.include(PASSWORD);
  });

  it("refuses a password that differs only by a kept newline (one is trimmed, no more)", async () => {
    const file = passwordFile("two-newlines", `${PASSWORD}\n\n`);
    expect(await refusal(`keystore:${keystoreFile}?password-file=${file}`)).to.equal(
      `keystore:${keystoreFile}: the password in ${file} does not open it`,
    );
  });

  it("refuses a file that is not a keystore, a missing keystore, a missing or empty password file", async () => {
    const notKeystore = passwordFile("not-keystore.json", '{"address":"0x00"}');
    const password = passwordFile("password-2", PASSWORD);
    const empty = passwordFile("empty", "\n");
    const missing = path.join(dir, "missing.json");
    expect(await refusal(`keystore:${notKeystore}?password-file=${password}`)).to.equal(
      `keystore:${notKeystore}: not a keystore (Web3 Secret Storage) JSON file`,
    );
    expect(await refusal(`keystore:${missing}?password-file=${password}`)).to.equal(
      `keystore:${missing}: cannot read the keystore file (ENOENT)`,
    );
    expect(await refusal(`keystore:${keystoreFile}?password-file=${missing}`)).to.equal(
      `keystore:${keystoreFile}: cannot read the password file ${missing} (ENOENT)`,
    );
    expect(await refusal(`keystore:${keystoreFile}?password-file=${empty}`)).to.equal(
      `keystore:${keystoreFile}: the password file ${empty} is empty`,
    );
  });

  it("signs a raw key exactly as the in-process digest signer does", async () => {
    const signer = await load(PRIVATE_KEY);
    const reference = createDigestSigner(PRIVATE_KEY);
    expect(signer.address).to.equal(reference.address);
    expect(signer.description).to.equal("env:RELAYER_SIGNER_KEY (a raw key, for development only)");
    for (let i = 0; i < 20; i++) {
      const digest = randomBytes(32);
      expect(await signer.sign(digest)).to.equal(reference.sign(digest));
    }
  });
});
