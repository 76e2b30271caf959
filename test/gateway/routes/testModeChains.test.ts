import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";

const SECRET = "acme-proof-secret-of-at-least-32-chars";
const TARGET = "0x000000000000000000000000000000000000dEaD";
const HASH = `0x${"ab".repeat(32)}`;

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

describe("API: test mode (blank auth) only on local and testnet chains", () => {
  const setup = async () => {
    const chains = new Map([
      ["localhost", idleChain("localhost", 31337)],
      ["maticmum", idleChain("maticmum", 80001)],
      ["matic", idleChain("matic", 137)],
    ]);
    const built = buildTestApp(
      { walletSignerKey: `0x${"3c".repeat(32)}` },
      { chains, txChains: ["localhost", "maticmum", "matic"] },
    );
    const { app, token } = await built.appWithToken("acme app", true);
    await (await built.repositories).providers.register(app.id, "acme", hs256Provider(SECRET));
    const post = (path: string, body: Record<string, unknown>) =>
      request(built.app)
        .post(path)
        .set("Authorization", `Bearer ${token}`)
        .send({ userId: "acme:alice", auth: "", ...body });
    const tx = (chain: string) => post("/v1/kernel/tx", { chain, to: [TARGET], value: ["0"], data: ["0x"] });
    return { ...built, post, tx };
  };

  const refused = (path: string, detail: string) => ({
    type: "about:blank",
    title: "Forbidden",
    status: 403,
    code: "TEST_MODE_NOT_ALLOWED",
    detail,
    instance: path,
  });

  it("a test-mode app cannot move funds on a production chain with a blank auth (403)", async () => {
    const { tx, close } = await setup();
    const res = await tx("matic");
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include(
      refused("/v1/kernel/tx", "A blank auth (test mode) is refused on production chains"),
    );
    // The local chain and testnets keep working with blank auth.
    expect((await tx("localhost")).status).to.equal(202);
    expect((await tx("maticmum")).status).to.equal(202);
    close();
  });

  it("a test-mode app asks for a wallet signature with blank auth naming a local, testnet or production chain, or none: refused (403)", async () => {
    const { post, close } = await setup();
    // The EIP-1271 signature has no chain id: whatever `chain` names, it would hold on every chain.
    const detail =
      "A blank auth (test mode) never yields a signature: the wallet's EIP-1271 signature holds on every chain " +
      "where the wallet exists, production ones included; send the user's proof";
    for (const chain of [undefined, "localhost", "maticmum", "matic"]) {
      const res = await post("/v1/kernel/sign", { hash: HASH, ...(chain ? { chain } : {}) });
      expect(res.status, chain).to.equal(403);
      expect(res.body, chain).to.deep.include(refused("/v1/kernel/sign", detail));
    }
    close();
  });
});
