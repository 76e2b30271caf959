import { expect } from "chai";
import { Wallet } from "ethers";
import { loadConfig } from "../../../gateway/config/load";
import {
  CUSTODY_ADDRESSES_ENV,
  CUSTODY_ONLY_ENV,
  TRANSACTION_KEY_ENV,
  handOverEnvironment,
  handleWalletMessageRequest,
  remoteCustody,
} from "../../../gateway/custody/clusterCustody";
import type { SignatureRecord } from "../../../gateway/custody/keySigner";
import { localWalletMessageSigner } from "../../../gateway/custody/walletMessageSigner";
import { kernelReplaySafeHash } from "../../../gateway/identity/kernelMessage";
import { parseUserId } from "../../../gateway/identity/userId";
import { deriveWalletAddress } from "../../../gateway/identity/walletAddress";
import { createAppTokens } from "../../../gateway/auth/appTokens";
import { admitAppToken } from "../../../gateway/auth/appAuth";
import { testKeySigner } from "../../helpers/keySigners";
import { openTestStore, type TestStore } from "../storage/builders";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const ENV = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
  TEST_DEPLOYMENT: "true",
};
const HASH = `0x${"ab".repeat(32)}`;
const ALICE = "tel:14155550100";
const aliceWallet = deriveWalletAddress(ENV.CONTRACT_KERNEL_FACTORY, "kernel", parseUserId(ALICE));

const tokens = createAppTokens({
  secret: ENV.AUTH_TOKEN_SECRET,
  issuer: "idwallet",
  audience: "idwallet-api",
  clock: () => new Date(),
});
/** The apps of the primary's database, and a bearer token of the first, as a worker sees it with each request. */
let store: TestStore;
let app: { id: string; token: string };

/** The primary's own check of an app token, as the cluster's primary runs it: the id of an admitted token's app. */
const verifyApp = async (token: string) =>
  (await admitAppToken((appId) => store.repos.apps.findById(appId), await tokens.verify(token))).id;

/**
 * A worker's custody wired to a primary holding KEY, through the real message handlers on both ends; `send` the
 * channel to the primary as code running in the worker has it.
 */
function workerAndPrimary(records: SignatureRecord[]) {
  const env: NodeJS.ProcessEnv = {
    WALLET_SIGNER_KEY: KEY,
    RELAYER_SIGNER: "pkcs11:token=t;object=o?pin-value=1234",
    AUDIT_LOG_KEY: "c3".repeat(32),
  };
  const primary = localWalletMessageSigner(testKeySigner(KEY, records));
  handOverEnvironment(env, { walletSigner: primary.address });
  let toWorker: (message: unknown) => void = () => undefined;
  const send = (message: unknown) =>
    handleWalletMessageRequest(structuredClone(message), {
      walletMessages: primary,
      kernelFactory: ENV.CONTRACT_KERNEL_FACTORY,
      verifyApp,
      reply: (answer) => toWorker(structuredClone(answer)),
    });
  const worker = remoteCustody(loadConfig(ENV), env, { send, onMessage: (listener) => void (toWorker = listener) });
  return { env, worker, primary, send, answers: () => new Promise<unknown>((resolve) => (toWorker = resolve)) };
}

describe("custody in a cluster: HTTP workers hold no transaction key", () => {
  beforeEach(async () => {
    store = await openTestStore();
    const { app: created } = await store.repos.apps.create({ name: "payments" });
    app = { id: created.id, token: (await tokens.issue(created)).token };
  });
  afterEach(() => store.database.close());

  it("forks workers without any transaction key setting or AUDIT_LOG_KEY, only the keys' addresses", () => {
    const { env, primary } = workerAndPrimary([]);
    expect(Object.keys(env)).to.deep.equal([CUSTODY_ADDRESSES_ENV]);
    expect(JSON.parse(env[CUSTODY_ADDRESSES_ENV]!)).to.deep.equal({ walletSigner: primary.address });
    expect(TRANSACTION_KEY_ENV).to.include.members(["WALLET_SIGNER_KEY", "SAFE_OPERATOR_SIGNER", "RELAYER_SIGNER_KEY"]);
    expect(TRANSACTION_KEY_ENV).not.to.include("CCIP_SIGNER_KEYS");
    expect(CUSTODY_ONLY_ENV).to.include.members([...TRANSACTION_KEY_ENV, "AUDIT_LOG_KEY"]);
  });

  it("answers a worker's EIP-1271 request with the key's signature of the wallet's replay-safe hash, logged", async () => {
    const records: SignatureRecord[] = [];
    const { worker, primary } = workerAndPrimary(records);
    expect(worker.signers).to.equal(undefined);
    expect(worker.addresses).to.deep.equal({ walletSigner: primary.address });
    const signature = await worker.walletMessages!.signWalletMessage(aliceWallet, HASH, {
      appId: app.id,
      userId: ALICE,
      appToken: app.token,
    });
    const digest = kernelReplaySafeHash(aliceWallet, HASH);
    expect(new Wallet(KEY).signingKey.sign(digest).serialized).to.equal(signature);
    expect(records.map((r) => [r.purpose, r.userId, r.digest])).to.deep.equal([["eip1271", ALICE, digest]]);
  });

  it("logs the canonical user id the primary derived the wallet from, whatever spelling a compromised worker sent", async () => {
    const records: SignatureRecord[] = [];
    const { worker } = workerAndPrimary(records);
    await worker.walletMessages!.signWalletMessage(aliceWallet, HASH, {
      appId: app.id,
      userId: " TEL:+1 (415) 555-0100",
      appToken: app.token,
    });
    expect(records.map((r) => r.userId)).to.deep.equal([ALICE]);
  });

  it("refuses, as the primary, to sign for a wallet that is not the user id's (a compromised worker)", async () => {
    const records: SignatureRecord[] = [];
    const { worker } = workerAndPrimary(records);
    const other = deriveWalletAddress(ENV.CONTRACT_KERNEL_FACTORY, "kernel", parseUserId("tel:14155550199"));
    const refused = await worker
      .walletMessages!.signWalletMessage(other, HASH, { appId: app.id, userId: ALICE, appToken: app.token })
      .catch((e: Error) => e);
    expect(refused).to.be.instanceOf(Error).with.property("message").that.includes("not the user id's wallet");
    const notAnId = await worker
      .walletMessages!.signWalletMessage(aliceWallet, HASH, { appId: app.id, userId: "nobody", appToken: app.token })
      .catch((e: Error) => e);
    expect(notAnId).to.be.instanceOf(Error).with.property("message").that.includes("not a user id");
    expect(records).to.deep.equal([]);
  });

  it("leaves other messages to their handlers, and refuses to run a worker whose CONFIG_FILE holds a key or AUDIT_LOG_KEY", () => {
    const deps = {
      walletMessages: undefined,
      kernelFactory: ENV.CONTRACT_KERNEL_FACTORY,
      verifyApp,
      reply: () => undefined,
    };
    expect(handleWalletMessageRequest({ type: "wake", chain: "localhost" }, deps)).to.equal(false);
    expect(handleWalletMessageRequest({ type: "idwallet:sign-wallet-message", id: "x" }, deps)).to.equal(false);
    const channel = { send: () => undefined, onMessage: () => undefined };
    expect(() =>
      remoteCustody(
        loadConfig({ ...ENV, CONTRACT_OWNER_ACCOUNT: ENV.CONTRACT_BASE_FACTORY }, { walletSignerKey: KEY }),
        {},
        channel,
      ),
    ).to.throw("with WORKERS > 1, keys belong in the environment, not CONFIG_FILE: WALLET_SIGNER_KEY");
    // The audit log's key too: every worker reads CONFIG_FILE.
    expect(() => remoteCustody(loadConfig(ENV, { auditLogKey: "c3".repeat(32) }), {}, channel)).to.throw(
      "with WORKERS > 1, keys belong in the environment, not CONFIG_FILE: AUDIT_LOG_KEY",
    );
  });

  it("a cluster worker names another app for an EIP-1271 signature: the row names the app the token belongs to", async () => {
    const records: SignatureRecord[] = [];
    const { send, answers } = workerAndPrimary(records);
    const { app: other } = await store.repos.apps.create({ name: "someone else" });
    // Code running in the worker speaks to the primary directly, naming the other app beside the token it was sent.
    const answered = answers();
    send({
      type: "idwallet:sign-wallet-message",
      id: "1",
      account: aliceWallet,
      hash: HASH,
      context: { appId: other.id, userId: ALICE },
      token: app.token,
    });
    expect(await answered).to.have.property("signature");
    expect(records.map((r) => r.appId)).to.deep.equal([app.id]);
  });

  it("a cluster worker asks for an EIP-1271 signature without a valid token of an active app: the primary refuses", async () => {
    const records: SignatureRecord[] = [];
    const { send, answers } = workerAndPrimary(records);
    const ask = async (token: string | undefined) => {
      const answered = answers();
      const context = { appId: app.id, userId: ALICE };
      send({ type: "idwallet:sign-wallet-message", id: "1", account: aliceWallet, hash: HASH, context, token });
      return answered;
    };
    const forged = `${app.token.slice(0, -4)}AAAA`;
    expect(await ask(forged))
      .to.have.property("error")
      .that.includes("the app token is not accepted");
    await store.repos.apps.setStatus(app.id, "disabled");
    expect(await ask(app.token))
      .to.have.property("error")
      .that.includes("the app token is not accepted");
    expect(records).to.deep.equal([]);
  });
});
