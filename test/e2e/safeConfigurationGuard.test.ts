import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { JsonRpcProvider, Wallet, concat, dataLength, solidityPacked } from "ethers";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { multiSendInterface, safeInterface } from "../../gateway/safe/encoding/safeArtifacts";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { runAdminCli } from "../../scripts/admin/cli";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken } from "../helpers/stackClients";

type Json = Record<string, unknown>;

/** OwnerManager's linked list starts at the sentinel 0x…01. */
const SENTINEL = "0x0000000000000000000000000000000000000001";

/**
 * The demo app (or whoever took its credentials, or the operator's hot key) turns against a customer's 1-of-2 Safe
 * on a real chain: the customer's key must stay an owner unless the operator explicitly granted the app otherwise
 * (design invariant 9).
 */
describe("Safe accounts: an app's token alone cannot reconfigure a customer's Safe (e2e: through the relayer)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let appToken: string;
  let safe: string;
  const customer = Wallet.createRandom();
  const attacker = Wallet.createRandom();

  const call = async (method: "GET" | "POST", route: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${appToken}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const final = async (txUuid: string): Promise<Json> => {
    for (let round = 0; round < 6; round++) {
      const { body } = await call("GET", `/v1/localhost/account/${safe}/tx/${txUuid}?wait=true`);
      if (body.status === "included" || body.status === "failed") return body;
    }
    throw new Error(`Safe request ${txUuid} not final after six waits`);
  };
  const owners = async (): Promise<string[]> => [
    ...(safeInterface.decodeFunctionResult(
      "getOwners",
      await chain.call({ to: safe, data: safeInterface.encodeFunctionData("getOwners") }),
    )[0] as string[]),
  ];
  const swapOutCustomer = () =>
    safeInterface.encodeFunctionData("swapOwner", [SENTINEL, customer.address, attacker.address]);
  /** The demo app's row, and the admin CLI run on the running service's database, as the operator would. */
  const admin = async (command: "grant-safe-config" | "revoke-safe-config") => {
    const database = await openDatabase(databaseLocation(stack.config));
    const demo = await createRepositories(database.db, () => new Date()).apps.findByClientId(stack.demoApp.clientId);
    await database.close();
    const quiet = { out: () => undefined, err: () => undefined };
    const args = ["--db", databaseLocation(stack.config), "apps", command, demo!.id];
    expect(await runAdminCli(args, { env: {}, output: quiet, clock: () => new Date() })).to.equal(0);
  };

  before(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    appToken = await demoAppToken(stack);
    const created = await call("POST", "/v1/localhost/account", { signers: [customer.address] });
    expect(created.status).to.equal(202);
    safe = String(created.body.address);
    expect(await final(String(created.body.txUuid))).to.include({ status: "included" });
  });
  after(async () => {
    chain.destroy();
    await stack.close();
  });

  it("an app holding only its token swaps the customer's owner key out of the Safe: refused, the customer stays an owner", async () => {
    const before = await owners();
    expect(before).to.include(customer.address);
    const res = await call("POST", `/v1/localhost/account/${safe}/custom`, {
      to: safe.toLowerCase(),
      data: swapOutCustomer(),
    });
    expect([res.status, res.body.code]).to.deep.equal([403, "SAFE_CALL_NOT_ALLOWED"]);
    expect(res.body.calls).to.deep.equal([{ index: 0, to: safe, reason: "SELF_CALL", function: "swapOwner" }]);
    expect(await owners()).to.deep.equal(before);
  });

  it("an app holding only its token wraps the swap in a MultiSendCallOnly batch it delegatecalls: refused, owners unchanged", async () => {
    const before = await owners();
    const swap = swapOutCustomer();
    const entry = solidityPacked(
      ["uint8", "address", "uint256", "uint256", "bytes"],
      [0, "0x0000000000000000000000000000000000000000", 0, dataLength(swap), swap],
    );
    const res = await call("POST", `/v1/localhost/account/${safe}/custom`, {
      to: stack.safe.multiSendCallOnly,
      data: multiSendInterface.encodeFunctionData("multiSend", [concat([entry])]),
      operation: 1,
    });
    expect([res.status, res.body.code]).to.deep.equal([403, "SAFE_CALL_NOT_ALLOWED"]);
    expect(await owners()).to.deep.equal(before);
  });

  it("a swap of the customer's key stored before the rule existed is never signed: failed SAFE_CALL_NOT_ALLOWED, owners unchanged", async () => {
    const before = await owners();
    const nonce = await chain.call({ to: safe, data: safeInterface.encodeFunctionData("nonce") });
    // As an earlier version accepted it: a custom call to the Safe itself, stored and queued for the relayer.
    const database = await openDatabase(databaseLocation(stack.config));
    const repositories = createRepositories(database.db, () => new Date());
    const demo = await repositories.apps.findByClientId(stack.demoApp.clientId);
    const { record } = await repositories.transactions.create({
      appId: demo!.id,
      accountType: "safe",
      chain: "localhost",
      sender: safe,
      calls: [{ to: safe, value: 0n, data: swapOutCustomer().toLowerCase() }],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: randomUUID(),
      safeAction: "custom",
    });
    await database.close();
    const done = await final(record.id);
    expect(done).to.deep.include({ status: "failed", transactionHash: null });
    expect((done.error as Json).code).to.equal("SAFE_CALL_NOT_ALLOWED");
    expect(String((done.error as Json).message)).to.include("swapOwner");
    expect(await owners()).to.deep.equal(before);
    expect(await chain.call({ to: safe, data: safeInterface.encodeFunctionData("nonce") })).to.equal(nonce);
  });

  it("with the operator's grant (apps grant-safe-config) the app adds an owner, as the operator chose; revoked, refused again", async () => {
    await admin("grant-safe-config");
    const added = Wallet.createRandom().address;
    const res = await call("POST", `/v1/localhost/account/${safe}/custom`, {
      to: safe,
      data: safeInterface.encodeFunctionData("addOwnerWithThreshold", [added, 1]),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(await final(String(res.body.txUuid))).to.include({ status: "included" });
    expect(await owners())
      .to.include(added)
      .and.include(customer.address);
    await admin("revoke-safe-config");
    const refused = await call("POST", `/v1/localhost/account/${safe}/custom`, {
      to: safe,
      data: safeInterface.encodeFunctionData("removeOwner", [SENTINEL, added, 1]),
    });
    expect([refused.status, refused.body.code]).to.deep.equal([403, "SAFE_CALL_NOT_ALLOWED"]);
    expect(await owners()).to.include(added);
  });
});
