import { expect } from "chai";
import { writeFileSync } from "node:fs";
import path from "node:path";
import {
  Signature,
  SigningKey,
  computeAddress,
  getBytes,
  hexlify,
  keccak256,
  randomBytes,
  recoverAddress,
  toUtf8Bytes,
} from "ethers";
import {
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EC_POINT,
  CKA_EXTRACTABLE,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_SENSITIVE,
  CKA_SIGN,
  CKA_TOKEN,
  CKA_VALUE,
  CKF_RW_SESSION,
  CKF_SERIAL_SESSION,
  CKK_EC,
  CKM_EC_KEY_PAIR_GEN,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
  CKU_USER,
  type Handle,
  type PKCS11,
} from "pkcs11js";
import {
  CustodyError,
  type CustodySigner,
  type LoadSignerOptions,
  SECP256K1_EC_PARAMS,
  acquirePkcs11Module,
  encodeEcPoint,
  loadSigner,
  loadedPkcs11Modules,
  parseSignerReference,
} from "../../../gateway/custody";
import { SOFTHSM2_MODULE } from "../../../scripts/softhsm";
import { type TestTokens, createTestTokens } from "../../helpers/softHsm";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const PIN = "custody-pin-4821";
const OTHER_PIN = "other-pin-9377";
const key = (name: string) => keccak256(toUtf8Bytes(`custody test key ${name}`));
const RELAYER = key("relayer");
const SPONSOR = key("sponsor");
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex"); // 1.2.840.10045.3.1.7

/** Runs `work` logged in to the token labelled `label`, on a read-write session of its own. */
function inToken<T>(label: string, pin: string, work: (pkcs11: PKCS11, session: Handle) => T): T {
  const module = acquirePkcs11Module(SOFTHSM2_MODULE);
  const { pkcs11 } = module;
  try {
    const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trimEnd() === label)!;
    const session = pkcs11.C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION);
    try {
      pkcs11.C_Login(session, CKU_USER, pin);
      return work(pkcs11, session);
    } finally {
      pkcs11.C_CloseSession(session);
    }
  } finally {
    module.release();
  }
}

/** An EC key-pair object of `privateKey` in the token: its private half, or its public half. */
function createKeyObject(
  pkcs11: PKCS11,
  session: Handle,
  label: string,
  privateKey: string,
  half: "private" | "public",
) {
  const common = [
    { type: CKA_TOKEN, value: true },
    { type: CKA_KEY_TYPE, value: CKK_EC },
    { type: CKA_LABEL, value: label },
    { type: CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS },
  ];
  if (half === "public") {
    const point = encodeEcPoint(getBytes(SigningKey.computePublicKey(privateKey, false)));
    pkcs11.C_CreateObject(session, [
      ...common,
      { type: CKA_CLASS, value: CKO_PUBLIC_KEY },
      { type: CKA_EC_POINT, value: point },
    ]);
  } else {
    pkcs11.C_CreateObject(session, [
      ...common,
      { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
      { type: CKA_SIGN, value: true },
      { type: CKA_VALUE, value: Buffer.from(getBytes(privateKey)) },
    ]);
  }
}

describe("custody: PKCS#11 signer on a SoftHSM2 token", function () {
  let tokens: TestTokens;
  const opened: CustodySigner[] = [];

  before(function () {
    tokens = createTestTokens([
      {
        label: "idwallet",
        pin: PIN,
        keys: [
          { label: "relayer", privateKey: RELAYER },
          { label: "sponsor", privateKey: SPONSOR },
          { label: "generated" },
        ],
      },
      { label: "untouched", pin: OTHER_PIN, keys: [{ label: "key", privateKey: key("untouched") }] },
    ]);
    // What a careless operator or an attacker with the PIN could leave in the token.
    inToken("idwallet", PIN, (pkcs11, session) => {
      pkcs11.C_GenerateKeyPair(
        session,
        { mechanism: CKM_EC_KEY_PAIR_GEN },
        [
          { type: CKA_TOKEN, value: true },
          { type: CKA_LABEL, value: "p256" },
          { type: CKA_EC_PARAMS, value: P256_PARAMS },
        ],
        [
          { type: CKA_TOKEN, value: true },
          { type: CKA_LABEL, value: "p256" },
          { type: CKA_SIGN, value: true },
        ],
      );
      createKeyObject(pkcs11, session, "mixed", key("mixed private"), "private");
      createKeyObject(pkcs11, session, "mixed", key("attacker"), "public");
      createKeyObject(pkcs11, session, "twice", key("twice 1"), "private");
      createKeyObject(pkcs11, session, "twice", key("twice 2"), "private");
      createKeyObject(pkcs11, session, "twice", key("twice 1"), "public");
    });
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((signer) => signer.close?.()));
    expect(loadedPkcs11Modules(), "a signer left the module loaded").to.deep.equal([]);
  });

  after(() => tokens?.remove());

  const reference = (token: string, object: string, query = `pin-value=${PIN}`) =>
    parseSignerReference("RELAYER_SIGNER_KEY", `pkcs11:token=${token};object=${object}?${query}`, {
      pkcs11Module: SOFTHSM2_MODULE,
    });

  async function open(token: string, object: string, query?: string, options?: LoadSignerOptions) {
    const signer = await loadSigner(reference(token, object, query), options);
    opened.push(signer);
    return signer;
  }

  /** The CustodyError loading the signer throws. */
  async function refusal(token: string, object: string, query?: string): Promise<CustodyError> {
    try {
      opened.push(await loadSigner(reference(token, object, query)));
    } catch (error) {
      expect(error).to.be.instanceOf(CustodyError);
      return error as CustodyError;
    }
    throw new Error(`expected ${token}/${object} to be refused`);
  }

  it("gives an imported key the address of its private key", async () => {
    const relayer = await open("idwallet", "relayer");
    const sponsor = await open("idwallet", "sponsor");
    expect(relayer.address).to.equal(computeAddress(RELAYER));
    expect(sponsor.address).to.equal(computeAddress(SPONSOR));
    expect(relayer.description).to.equal("pkcs11:token=idwallet;object=relayer");
  });

  it("signs random digests with low-s signatures that recover to the address, v 27 or 28", async () => {
    const signer = await open("idwallet", "relayer");
    const vs = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const digest = randomBytes(32);
      const signature = await signer.sign(digest);
      expect(getBytes(signature)).to.have.length(65);
      expect(recoverAddress(hexlify(digest), signature)).to.equal(signer.address);
      const { s, v } = Signature.from(signature);
      expect(BigInt(s) <= N / 2n, `high s for digest ${hexlify(digest)}`).to.equal(true);
      vs.add(v);
    }
    expect([...vs].sort()).to.deep.equal([27, 28]);
  });

  it("signs with a key generated inside the token, for the address the token script printed", async () => {
    const printed = tokens.tokens.idwallet!.keys.find((k) => k.label === "generated")!;
    expect(printed.generated).to.equal(true);
    const signer = await open("idwallet", "generated");
    expect(signer.address).to.equal(printed.address);
    const digest = randomBytes(32);
    expect(recoverAddress(hexlify(digest), await signer.sign(digest))).to.equal(printed.address);
  });

  for (const sessions of [1, 4]) {
    it(`signs 200 digests in parallel on ${sessions} session(s), every signature verifying`, async () => {
      const signer = await open("idwallet", "sponsor", undefined, { pkcs11Sessions: sessions });
      const digests = Array.from({ length: 200 }, () => randomBytes(32));
      const signatures = await Promise.all(digests.map((digest) => signer.sign(digest)));
      signatures.forEach((signature, i) =>
        expect(recoverAddress(hexlify(digests[i]!), signature)).to.equal(computeAddress(SPONSOR)),
      );
    });
  }

  it("reads the PIN from a pin-source file, less its trailing newline", async () => {
    const pinFile = path.join(tokens.dir, "pin");
    writeFileSync(pinFile, `${PIN}\n`, { mode: 0o600 });
    const signer = await open("idwallet", "relayer", `pin-source=file:${pinFile}`);
    expect(signer.address).to.equal(computeAddress(RELAYER));
  });

  it("shares one loaded module among signers, unloading it when the last closes", async () => {
    const first = await open("idwallet", "relayer");
    const second = await open("idwallet", "sponsor");
    expect(loadedPkcs11Modules()).to.have.length(1);
    await first.close?.();
    const digest = randomBytes(32);
    expect(recoverAddress(hexlify(digest), await second.sign(digest))).to.equal(computeAddress(SPONSOR));
    await second.close?.();
    expect(loadedPkcs11Modules()).to.deep.equal([]);
  });

  it("finishes the signatures under way when closed, then refuses to sign", async () => {
    const signer = await open("idwallet", "relayer");
    const digests = Array.from({ length: 50 }, () => randomBytes(32));
    const pending = digests.map((digest) => signer.sign(digest));
    await signer.close?.();
    const signatures = await Promise.all(pending);
    signatures.forEach((signature, i) =>
      expect(recoverAddress(hexlify(digests[i]!), signature)).to.equal(signer.address),
    );
    const error = await signer.sign(randomBytes(32)).catch((e: unknown) => e);
    expect(error)
      .to.be.instanceOf(CustodyError)
      .with.property("message", "pkcs11:token=idwallet;object=relayer: the signer is closed");
  });

  it("refuses a digest that is not 32 bytes", async () => {
    const signer = await open("idwallet", "relayer");
    const error = await signer.sign(new Uint8Array(31)).catch((e: unknown) => e);
    expect(error)
      .to.be.instanceOf(CustodyError)
      .with.property("message", "pkcs11:token=idwallet;object=relayer: a digest is 32 bytes, not 31");
  });

  it("refuses a key on another curve (P-256) under the label: no Ethereum address verifies it", async () => {
    const error = await refusal("idwallet", "p256");
    expect(error.message).to.equal(
      "pkcs11:token=idwallet;object=p256: the private key is not on secp256k1 (CKA_EC_PARAMS 06082a8648ce3d030107)",
    );
  });

  it("refuses a planted public key that is not the private key's (it would claim the planter's address)", async () => {
    const error = await refusal("idwallet", "mixed");
    expect(error.message).to.equal(
      'pkcs11:token=idwallet;object=mixed: the key objects labelled "mixed" are not one key pair',
    );
  });

  it("refuses a label held by two private keys", async () => {
    const error = await refusal("idwallet", "twice");
    expect(error.message).to.equal(
      'pkcs11:token=idwallet;object=twice: more than one EC private key labelled "twice" in the token',
    );
  });

  it("refuses a wrong PIN, saying so without the PIN", async () => {
    const wrongPin = "wrong-pin-51723";
    const error = await refusal("untouched", "key", `pin-value=${wrongPin}`);
    expect(error.message).to.equal("pkcs11:token=untouched;object=key: C_Login: CKR_PIN_INCORRECT (the PIN is wrong)");
    expect(error.code).to.equal("CKR_PIN_INCORRECT");
    expect(String(error.stack)).to.not.include(wrongPin);
    expect(JSON.stringify(error)).to.not.include(wrongPin);
  });

  it("refuses an unknown token and an unknown object, naming them without the PIN", async () => {
    const noToken = await refusal("missing", "relayer");
    expect(noToken.message).to.equal('pkcs11:token=missing;object=relayer: no token labelled "missing"');
    const noObject = await refusal("idwallet", "missing");
    expect(noObject.message).to.equal(
      'pkcs11:token=idwallet;object=missing: no EC private key labelled "missing" in the token',
    );
    for (const error of [noToken, noObject]) expect(String(error.stack)).to.not.include(PIN);
  });

  it("refuses a missing PIN file and a missing module", async () => {
    const pinFile = path.join(tokens.dir, "no-such-pin");
    expect((await refusal("idwallet", "relayer", `pin-source=file:${pinFile}`)).message).to.equal(
      `pkcs11:token=idwallet;object=relayer: cannot read the PIN file ${pinFile} (ENOENT)`,
    );
    expect(
      (await refusal("idwallet", "relayer", `module-path=/nonexistent/libpkcs11.so&pin-value=${PIN}`)).message,
    ).to.equal(
      "pkcs11:token=idwallet;object=relayer: cannot load the PKCS#11 module /nonexistent/libpkcs11.so: ENOENT",
    );
  });

  it("keeps keys inside the token: even with the PIN, an attacker cannot read a private key out", () => {
    inToken("idwallet", PIN, (pkcs11, session) => {
      for (const label of ["relayer", "generated"]) {
        pkcs11.C_FindObjectsInit(session, [
          { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
          { type: CKA_LABEL, value: label },
        ]);
        const [handle] = pkcs11.C_FindObjects(session, 1);
        pkcs11.C_FindObjectsFinal(session);
        const [sensitive, extractable] = pkcs11.C_GetAttributeValue(session, handle!, [
          { type: CKA_SENSITIVE },
          { type: CKA_EXTRACTABLE },
        ]);
        expect(sensitive!.value[0], `${label} CKA_SENSITIVE`).to.equal(1);
        expect(extractable!.value[0], `${label} CKA_EXTRACTABLE`).to.equal(0);
        expect(() => pkcs11.C_GetAttributeValue(session, handle!, [{ type: CKA_VALUE }])).to.throw(
          "CKR_ATTRIBUTE_SENSITIVE",
        );
      }
    });
  });
});
