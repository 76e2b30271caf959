import { expect } from "chai";
import { type JsonRpcProvider, JsonRpcProvider as Provider, computeAddress } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { safeInterface } from "../../../gateway/safe/encoding/safeArtifacts";
import { rotateSafeOperator } from "../../../scripts/admin/safeOperatorRotation";
import { buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const OLD_OPERATOR = computeAddress(`0x${"5a".repeat(32)}`);
const NEW_OPERATOR = computeAddress(`0x${"5b".repeat(32)}`);
const SIGNER = "0x00000000000000000000000000000000000000A1";
const SENTINEL = "0x0000000000000000000000000000000000000001";
const CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new Provider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** The chain as the rotation reads it: every Safe's owners are the app's signer and the old operator. */
const chainWithOwners = (owners: string[]) =>
  ({
    call: async () => safeInterface.encodeFunctionResult("getOwners", [owners]),
  }) as unknown as JsonRpcProvider;

describe("Safe operator rotation against the app that owns the Safe", () => {
  const setup = async () => {
    const built = buildTestApp(
      {
        chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: CONTRACTS },
      },
      { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] },
    );
    const { token } = await built.appWithToken("acme app");
    const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
      request(built.app)
        .post(route)
        .set({ Authorization: `Bearer ${token}`, ...headers })
        .send(body as object);
    const { body: safe } = await post("/v1/localhost/account", { signers: [SIGNER] });
    return { ...built, post, safe: safe.address as string };
  };

  it("an app that takes the rotation's Idempotency-Key first cannot keep the old operator on its Safe", async () => {
    const { post, safe, repositories, close } = await setup();
    const repos = await repositories;
    // The app guesses the key the rotation queues its swap under, and spends it on a harmless call of its own.
    const guessed = `rotate-operator:${safe}:${NEW_OPERATOR}`;
    const taken = await post(`/v1/localhost/account/${safe}/custom`, { to: SIGNER }, { "Idempotency-Key": guessed });
    expect(taken.status).to.equal(202);
    const deps = { provider: chainWithOwners([SIGNER, OLD_OPERATOR]), ...repos };
    const run = await rotateSafeOperator(deps, "localhost", OLD_OPERATOR, NEW_OPERATOR);
    expect(run.pending).to.have.length(1);
    const queued = (await repos.transactions.find(run.pending[0]!))!;
    // What the rotation reports as the Safe's swap is the swap, not whatever the app sent under that key.
    expect(queued.calls).to.deep.equal([
      {
        to: safe,
        value: 0n,
        data: safeInterface.encodeFunctionData("swapOwner", [SIGNER, OLD_OPERATOR, NEW_OPERATOR]),
      },
    ]);
    // Run again: it finds its swap rather than queueing another.
    expect((await rotateSafeOperator(deps, "localhost", OLD_OPERATOR, NEW_OPERATOR)).pending).to.deep.equal(
      run.pending,
    );
    // Nor can the app name the key the rotation uses: no Idempotency-Key an app sends can be it.
    const key = (queued as { idempotencyKey?: string }).idempotencyKey!;
    const refused = await post(`/v1/localhost/account/${safe}/custom`, { to: SIGNER }, { "Idempotency-Key": key });
    expect([refused.status, refused.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    close();
  });

  it("swaps the operator at the head of the owner list from the sentinel", async () => {
    const { safe, repositories, close } = await setup();
    const repos = await repositories;
    const deps = { provider: chainWithOwners([OLD_OPERATOR, SIGNER]), ...repos };
    const run = await rotateSafeOperator(deps, "localhost", OLD_OPERATOR, NEW_OPERATOR);
    const queued = (await repos.transactions.find(run.pending[0]!))!;
    expect(queued.calls[0]!.data).to.equal(
      safeInterface.encodeFunctionData("swapOwner", [SENTINEL, OLD_OPERATOR, NEW_OPERATOR]),
    );
    expect(queued.sender).to.equal(safe);
    close();
  });
});
