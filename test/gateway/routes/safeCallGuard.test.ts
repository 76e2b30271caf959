import { expect } from "chai";
import { Interface, JsonRpcProvider, Wallet, concat, solidityPacked } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { multiSendInterface, safeInterface } from "../../../gateway/safe/encoding/safeArtifacts";
import { runAdminCommand } from "../../../scripts/admin/commands";
import { buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const OPERATOR_KEY = `0x${"5a".repeat(32)}`;
const CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;
/** The customer's key: the owner that must never be taken out of the Safe without it. */
const CUSTOMER = "0x00000000000000000000000000000000000000A1";
const ATTACKER = Wallet.createRandom().address;
/** OwnerManager's linked list starts at the sentinel 0x…01. */
const SENTINEL = "0x0000000000000000000000000000000000000001";
/** Some contract that, delegatecalled, would write the Safe's owner slots. */
const REWRITER = "0x000000000000000000000000000000000000bEEF";
const TARGET = "0x000000000000000000000000000000000000dEaD";

const config = (fn: string, args: unknown[]) => safeInterface.encodeFunctionData(fn, args);

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/**
 * An app that holds only its own token (or a thief who took it, or the operator's hot key) turns against a Safe it
 * created for a customer: the customer's key must stay an owner, and nothing the app sends may change the Safe's
 * owners, threshold, modules, guards or fallback handler (design invariant 9). Every refusal stores nothing.
 */
describe("API: an app's token alone cannot reconfigure a customer's Safe (403 SAFE_CALL_NOT_ALLOWED)", () => {
  const setup = async () => {
    const built = buildTestApp(
      {
        chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: OPERATOR_KEY, contracts: CONTRACTS },
      },
      { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] },
    );
    const repos = await built.repositories;
    const { app, token } = await built.appWithToken("turned app");
    const post = (route: string, body: unknown) =>
      request(built.app)
        .post(route)
        .set({ Authorization: `Bearer ${token}` })
        .send(body as object);
    const { body: created } = await post("/v1/localhost/account", { signers: [CUSTOMER] });
    const safe = created.address as string;
    const custom = (body: Record<string, unknown>) => post(`/v1/localhost/account/${safe}/custom`, body);
    /** Runs an admin CLI command on this app's database, as the operator would. */
    const admin = async (kind: string) => {
      const output = { out: () => undefined, err: () => undefined };
      expect(await runAdminCommand({ kind, id: app.id } as never, repos, output)).to.equal(0);
    };
    const stored = async () => (await repos.transactions.countByStatus()).reduce((n, row) => n + row.count, 0);
    return { ...built, safe, post, custom, admin, stored };
  };

  /** Expects a 403 SAFE_CALL_NOT_ALLOWED naming `calls`, and that nothing more was stored. */
  const refused = async (
    res: request.Response,
    calls: { index: number; to: string; reason: string; function?: string }[],
    before: number,
    stored: () => Promise<number>,
  ) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(403);
    expect(res.body).to.deep.include({ code: "SAFE_CALL_NOT_ALLOWED", title: "Safe call not allowed", calls });
    expect(res.body.detail).to.match(/customer/);
    expect(await stored()).to.equal(before);
  };

  it("an app holding only its token swaps the customer's owner key out of the Safe: refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    const res = await custom({ to: safe, data: config("swapOwner", [SENTINEL, CUSTOMER, ATTACKER]) });
    await refused(res, [{ index: 0, to: safe, reason: "SELF_CALL", function: "swapOwner" }], before, stored);
    expect(res.body.detail).to.include("swapOwner");
    close();
  });

  it("an app holding only its token adds its own owner, removes the customer's or raises the threshold: refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    const calls: [string, unknown[]][] = [
      ["addOwnerWithThreshold", [ATTACKER, 2]],
      ["removeOwner", [SENTINEL, CUSTOMER, 1]],
      ["changeThreshold", [2]],
    ];
    for (const [fn, args] of calls) {
      const res = await custom({ to: safe, data: config(fn, args) });
      await refused(res, [{ index: 0, to: safe, reason: "SELF_CALL", function: fn }], before, stored);
    }
    close();
  });

  it("an app holding only its token enables a module (which could then act without any owner): refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    const res = await custom({ to: safe, data: config("enableModule", [ATTACKER]) });
    await refused(res, [{ index: 0, to: safe, reason: "SELF_CALL", function: "enableModule" }], before, stored);
    const disable = await custom({ to: safe, data: config("disableModule", [SENTINEL, ATTACKER]) });
    await refused(disable, [{ index: 0, to: safe, reason: "SELF_CALL", function: "disableModule" }], before, stored);
    close();
  });

  it("an app holding only its token sets a guard, a module guard or a fallback handler: refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    for (const fn of ["setGuard", "setModuleGuard", "setFallbackHandler"]) {
      const res = await custom({ to: safe, data: config(fn, [ATTACKER]) });
      await refused(res, [{ index: 0, to: safe, reason: "SELF_CALL", function: fn }], before, stored);
    }
    close();
  });

  it("an app holding only its token calls the Safe under its lower-case address, or with no data at all: refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    const lower = safe.toLowerCase();
    const res = await custom({ to: lower, data: config("swapOwner", [SENTINEL, CUSTOMER, ATTACKER]) });
    await refused(res, [{ index: 0, to: safe, reason: "SELF_CALL", function: "swapOwner" }], before, stored);
    const bare = await custom({ to: lower });
    await refused(bare, [{ index: 0, to: safe, reason: "SELF_CALL" }], before, stored);
    close();
  });

  it("an app holding only its token delegatecalls a contract that rewrites owners: refused", async () => {
    const { custom, stored, close } = await setup();
    const before = await stored();
    const res = await custom({ to: REWRITER, data: "0x12345678", operation: 1 });
    await refused(res, [{ index: 0, to: REWRITER, reason: "DELEGATECALL" }], before, stored);
    close();
  });

  it("an app holding only its token wraps a self-call in a MultiSend batch it delegatecalls: refused", async () => {
    const { safe, custom, stored, close } = await setup();
    const before = await stored();
    const swap = config("swapOwner", [SENTINEL, CUSTOMER, ATTACKER]);
    // MultiSendCallOnly reads a target 0x0 as the Safe itself: both spellings of a self-call.
    const entries = [safe, "0x0000000000000000000000000000000000000000"].map((to) =>
      solidityPacked(["uint8", "address", "uint256", "uint256", "bytes"], [0, to, 0, (swap.length - 2) / 2, swap]),
    );
    const data = multiSendInterface.encodeFunctionData("multiSend", [concat(entries)]);
    const res = await custom({ to: CONTRACTS.multiSendCallOnly, data, operation: 1 });
    await refused(res, [{ index: 0, to: CONTRACTS.multiSendCallOnly, reason: "DELEGATECALL" }], before, stored);
    close();
  });

  it("an app holding only its token sends a Safe configuration call to another contract: refused", async () => {
    const { custom, stored, close } = await setup();
    const before = await stored();
    // A contract the Safe administers (a module or modifier it owns, a Safe it is an owner or module of) takes the
    // same calls, and what it is allowed to do may reach back into this Safe.
    const res = await custom({ to: TARGET, data: config("enableModule", [ATTACKER]) });
    await refused(
      res,
      [{ index: 0, to: TARGET, reason: "CONFIGURATION_CALL", function: "enableModule" }],
      before,
      stored,
    );
    close();
  });

  it("an app holding only its token names the Safe itself as the token of a payout: refused", async () => {
    const { safe, post, stored, close } = await setup();
    const before = await stored();
    const transfer = await post(`/v1/localhost/account/${safe}/payout/transfer`, {
      token: safe.toLowerCase(),
      to: ATTACKER,
      amount: "1",
    });
    await refused(transfer, [{ index: 0, to: safe, reason: "SELF_CALL" }], before, stored);
    const disperse = await post(`/v1/localhost/account/${safe}/payout/disperse`, {
      transfers: [
        { to: ATTACKER, amount: "1" },
        { token: safe, to: ATTACKER, amount: "1" },
      ],
    });
    await refused(disperse, [{ index: 1, to: safe, reason: "SELF_CALL" }], before, stored);
    const nft = await post(`/v1/localhost/account/${safe}/payout/disperseNFT`, {
      transfers: [{ token: safe, to: ATTACKER, tokenId: "1" }],
    });
    await refused(nft, [{ index: 0, to: safe, reason: "SELF_CALL" }], before, stored);
    close();
  });

  it("with the operator's grant (apps grant-safe-config) the app's owner change, module and delegatecall are accepted; revoked, refused again", async () => {
    const { safe, custom, admin, stored, close } = await setup();
    const addOwner = { to: safe, data: config("addOwnerWithThreshold", [ATTACKER, 1]) };
    await admin("apps grant-safe-config");
    expect((await custom(addOwner)).status).to.equal(202);
    expect((await custom({ to: safe, data: config("enableModule", [ATTACKER]) })).status).to.equal(202);
    expect((await custom({ to: REWRITER, data: "0x12345678", operation: 1 })).status).to.equal(202);
    await admin("apps revoke-safe-config");
    const before = await stored();
    const res = await custom(addOwner);
    await refused(
      res,
      [{ index: 0, to: safe, reason: "SELF_CALL", function: "addOwnerWithThreshold" }],
      before,
      stored,
    );
    close();
  });

  it("leaves ordinary calls and payouts alone", async () => {
    const { safe, custom, post, close } = await setup();
    const erc20 = new Interface(["function transfer(address to, uint256 amount)"]);
    expect((await custom({ to: TARGET, data: erc20.encodeFunctionData("transfer", [ATTACKER, 1]) })).status).to.equal(
      202,
    );
    const payout = await post(`/v1/localhost/account/${safe}/payout/disperse`, {
      transfers: [{ to: ATTACKER, amount: "1" }],
    });
    expect(payout.status).to.equal(202);
    close();
  });
});
