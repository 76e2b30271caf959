import { expect } from "chai";
import { JsonRpcProvider, Wallet } from "ethers";
import request from "supertest";
import golden from "../../vectors/addresses.json";
import type { ChainClient } from "../../../gateway/chains/clients";
import { runAdminCommand } from "../../../scripts/admin/commands";
import { KernelAccount__factory, OwnerAccount__factory } from "../../../typechain-types";
import { buildTestApp } from "../../helpers/testApp";
import { hs256Proof, hs256Provider } from "../../helpers/providerProofs";

const SECRET = "acme-proof-secret-of-at-least-32-chars";
const TARGET = "0x000000000000000000000000000000000000dEaD";
/** The operator's OwnerAccount in this deployment's configuration. */
const OWNER_ACCOUNT = "0x00000000000000000000000000000000000A11cE";
const ATTACKER = Wallet.createRandom().address;
const TAKEOVER = KernelAccount__factory.createInterface().encodeFunctionData("transferOwnership", [ATTACKER]);
const ADD_SIGNER = OwnerAccount__factory.createInterface().encodeFunctionData("addSigner", [ATTACKER]);

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** The user's proof as the acme identity service signs it (HS256, `sub` = username), valid for an hour. */
const proofFor = (username: string): Promise<string> => hs256Proof(SECRET, username);

/**
 * An app that holds alice's valid proof (not in test mode: the proof is real) and turns against her wallet. Every
 * refusal must leave the database without a transaction row.
 */
describe("API: an app holding a user's proof cannot take the wallet over (403 CALL_NOT_ALLOWED)", () => {
  const setup = async () => {
    const built = buildTestApp(
      {
        contracts: {
          kernelFactory: golden.kernelFactory,
          baseFactory: golden.baseFactory,
          ownerAccount: OWNER_ACCOUNT,
        },
      },
      { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] },
    );
    const repos = await built.repositories;
    const { app, token } = await built.appWithToken("attacker app", false);
    await repos.providers.register(app.id, "acme", hs256Provider(SECRET));
    const auth = await proofFor("alice");
    const walletOf = async (accountType: "kernel" | "base", userId = "acme:alice") => {
      const res = await request(built.app).post("/v1/resolver").send({ userIds: userId, accountType });
      return res.body.users[0].accountAddress as string;
    };
    const send = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      request(built.app)
        .post(path)
        .set({ Authorization: `Bearer ${token}`, ...headers })
        .send({ userId: "acme:alice", chain: "localhost", auth, ...body });
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      send("/v1/kernel/tx", body, headers);
    /** Runs an admin CLI command on this app's database, as the operator would. */
    const admin = async (kind: "apps grant-delegatecall" | "apps revoke-delegatecall") => {
      const output = { out: () => undefined, err: () => undefined };
      expect(await runAdminCommand({ kind, id: app.id }, repos, output)).to.equal(0);
    };
    const storedRows = () => repos.transactions.countByStatus();
    return { ...built, repos, post, send, walletOf, admin, storedRows };
  };

  /** The exact problem of a refusal naming `calls`. */
  const refusal = (path: string, detail: string, calls: { index: number; to: string; reason: string }[]) => ({
    type: "about:blank",
    title: "Call not allowed",
    status: 403,
    code: "CALL_NOT_ALLOWED",
    detail,
    calls,
    instance: path,
  });
  const withoutRequestId = (body: Record<string, unknown>) => {
    const { requestId, ...rest } = body;
    expect(requestId).to.be.a("string");
    return rest;
  };

  it("refuses a call from the wallet to itself (transferOwnership to the attacker), storing nothing", async () => {
    const { post, walletOf, storedRows, close } = await setup();
    const wallet = await walletOf("kernel");
    const res = await post({ to: [wallet], value: ["0"], data: [TAKEOVER] }, { "Idempotency-Key": "takeover-1" });
    expect(res.status).to.equal(403);
    expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    expect(withoutRequestId(res.body)).to.deep.equal(
      refusal("/v1/kernel/tx", "call 0 targets the wallet itself", [{ index: 0, to: wallet, reason: "SELF_CALL" }]),
    );
    expect(await storedRows()).to.deep.equal([]);
    // The refused request took no Idempotency-Key: a legitimate request with it is a new one, not a replay.
    const honest = await post({ to: [TARGET], value: ["0"], data: ["0x"] }, { "Idempotency-Key": "takeover-1" });
    expect(honest.status).to.equal(202);
    expect(honest.headers["idempotent-replayed"]).to.equal(undefined);
    expect(await storedRows()).to.deep.equal([{ chain: "localhost", status: "queued", count: 1 }]);
    close();
  });

  it("refuses a call to the operator's owner account (addSigner of the attacker's key)", async () => {
    const { post, storedRows, close } = await setup();
    const res = await post({ to: [OWNER_ACCOUNT], value: ["0"], data: [ADD_SIGNER] });
    expect([res.status, withoutRequestId(res.body)]).to.deep.equal([
      403,
      refusal("/v1/kernel/tx", "call 0 targets the owner account", [
        { index: 0, to: OWNER_ACCOUNT, reason: "OWNER_ACCOUNT_CALL" },
      ]),
    ]);
    expect(await storedRows()).to.deep.equal([]);
    close();
  });

  it("finds the takeover hidden at index 3 of a batch of harmless transfers, and refuses the whole batch", async () => {
    const { post, walletOf, storedRows, close } = await setup();
    const wallet = await walletOf("kernel");
    const to = [TARGET, TARGET, TARGET, wallet, TARGET];
    const res = await post(
      { to, value: to.map(() => "0"), data: ["0x", "0x", "0x", TAKEOVER, "0x"] },
      { "Idempotency-Key": "batch-1" },
    );
    expect([res.status, withoutRequestId(res.body)]).to.deep.equal([
      403,
      refusal("/v1/kernel/tx", "call 3 targets the wallet itself", [{ index: 3, to: wallet, reason: "SELF_CALL" }]),
    ]);
    expect(await storedRows()).to.deep.equal([]);
    close();
  });

  it("is not fooled by the wallet's or the owner account's address in lower or upper case", async () => {
    const { post, walletOf, storedRows, close } = await setup();
    const wallet = await walletOf("kernel");
    const upper = (address: string) => `0x${address.slice(2).toUpperCase()}`;
    const disguised = [wallet.toLowerCase(), upper(wallet), OWNER_ACCOUNT.toLowerCase(), upper(OWNER_ACCOUNT)];
    const res = await post({ to: disguised, value: disguised.map(() => "0"), data: [TAKEOVER, TAKEOVER, "0x", "0x"] });
    // Addresses are answered in their EIP-55 form, whatever case they were sent in.
    expect([res.status, res.body.code, res.body.calls]).to.deep.equal([
      403,
      "CALL_NOT_ALLOWED",
      [
        { index: 0, to: wallet, reason: "SELF_CALL" },
        { index: 1, to: wallet, reason: "SELF_CALL" },
        { index: 2, to: OWNER_ACCOUNT, reason: "OWNER_ACCOUNT_CALL" },
        { index: 3, to: OWNER_ACCOUNT, reason: "OWNER_ACCOUNT_CALL" },
      ],
    ]);
    expect(await storedRows()).to.deep.equal([]);
    close();
  });

  it("refuses a delegatecall (which could rewrite the owner slot) from an app the operator has not granted it", async () => {
    const { post, storedRows, close } = await setup();
    const res = await post(
      { to: [TARGET, ATTACKER], value: ["0", "0"], data: ["0x", "0x"], delegatecall: 1 },
      { "Idempotency-Key": "dc-1" },
    );
    expect([res.status, withoutRequestId(res.body)]).to.deep.equal([
      403,
      refusal(
        "/v1/kernel/tx",
        "call 0 is a delegatecall, which this app has not been granted; " +
          "call 1 is a delegatecall, which this app has not been granted",
        [
          { index: 0, to: TARGET, reason: "DELEGATECALL_NOT_GRANTED" },
          { index: 1, to: ATTACKER, reason: "DELEGATECALL_NOT_GRANTED" },
        ],
      ),
    ]);
    expect(await storedRows()).to.deep.equal([]);
    close();
  });

  it("accepts the same delegatecall once the operator grants it, and refuses it again after the revoke", async () => {
    const { post, admin, storedRows, repos, close } = await setup();
    const body = { to: [TARGET], value: ["0"], data: ["0x"], delegatecall: 1 };
    await admin("apps grant-delegatecall");
    const accepted = await post(body, { "Idempotency-Key": "dc-granted" });
    expect(accepted.status).to.equal(202);
    expect((await repos.transactions.find(accepted.body.id))?.delegatecall).to.equal(true);
    // A grant is no licence to delegatecall into the wallet itself or its owner account.
    const selfDelegate = await post({ ...body, to: [OWNER_ACCOUNT] });
    expect([selfDelegate.status, selfDelegate.body.calls]).to.deep.equal([
      403,
      [{ index: 0, to: OWNER_ACCOUNT, reason: "OWNER_ACCOUNT_CALL" }],
    ]);
    await admin("apps revoke-delegatecall");
    const revoked = await post(body, { "Idempotency-Key": "dc-revoked" });
    expect([revoked.status, revoked.body.code, revoked.body.calls]).to.deep.equal([
      403,
      "CALL_NOT_ALLOWED",
      [{ index: 0, to: TARGET, reason: "DELEGATECALL_NOT_GRANTED" }],
    ]);
    expect(await storedRows()).to.deep.equal([{ chain: "localhost", status: "queued", count: 1 }]);
    close();
  });

  it("refuses a call from the deprecated base wallet to itself, on POST /v1/base/tx", async () => {
    const { send, walletOf, storedRows, close } = await setup();
    const base = await walletOf("base");
    const kernel = await walletOf("kernel");
    expect(base).to.not.equal(kernel);
    const res = await send("/v1/base/tx", { to: [TARGET, base], value: ["0", "0"], data: ["0x", TAKEOVER] });
    expect([res.status, withoutRequestId(res.body)]).to.deep.equal([
      403,
      refusal("/v1/base/tx", "call 1 targets the wallet itself", [{ index: 1, to: base, reason: "SELF_CALL" }]),
    ]);
    expect(res.headers.deprecation).to.equal("@1704067200");
    expect(await storedRows()).to.deep.equal([]);
    close();
  });

  it("does not block calls that cannot take a wallet over: the factory, the EntryPoint, another user's wallet", async () => {
    const { post, walletOf, storedRows, close, config } = await setup();
    const bobWallet = await walletOf("kernel", "tel:15551234567");
    const to = [config.contracts.kernelFactory, "0x0000000071727De22E5E9d8BAf0edAc6f37da032", bobWallet];
    const res = await post({ to, value: ["0", "0", "0"], data: ["0x", "0x", "0x"] });
    expect(res.status).to.equal(202);
    expect(await storedRows()).to.deep.equal([{ chain: "localhost", status: "queued", count: 1 }]);
    close();
  });

  it("tells an app without a valid proof nothing about the call rules: the proof error comes first", async () => {
    const { post, walletOf, storedRows, close } = await setup();
    const wallet = await walletOf("kernel");
    const takeover = { to: [wallet], value: ["0"], data: [TAKEOVER], delegatecall: 1 };
    const blank = await post({ ...takeover, auth: "" });
    expect([blank.status, blank.body.code]).to.deep.equal([401, "PROOF_REQUIRED"]);
    const bobsProof = await post({ ...takeover, auth: await proofFor("bob") });
    expect([bobsProof.status, bobsProof.body.code]).to.deep.equal([403, "PROOF_MISMATCH"]);
    for (const res of [blank, bobsProof]) expect(res.body).to.not.have.property("calls");
    expect(await storedRows()).to.deep.equal([]);
    close();
  });
});
