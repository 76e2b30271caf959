import { expect } from "chai";
import request from "supertest";
import golden from "../../vectors/addresses.json";
import { CHAINS } from "../../../gateway/chains/registry";
import { buildTestApp } from "../../helpers/testApp";

describe("GET /v1/networks", () => {
  it("lists every chain of the registry with its status and the contract addresses", async () => {
    const { app, close } = buildTestApp({ chains: { localhost: { rpcUrl: "http://127.0.0.1:8545" } } });
    const res = await request(app).get("/v1/networks").expect(200);
    close();
    expect(res.body.networks.map((n: { name: string }) => n.name)).to.deep.equal(CHAINS.map((c) => c.name));
    const byName = Object.fromEntries(res.body.networks.map((n: { name: string }) => [n.name, n]));
    expect(byName.matic).to.deep.equal({
      name: "matic",
      chainId: 137,
      type: "production",
      contracts: "deployed",
      api: "live",
      safe: true,
      configured: false,
      contractAddresses: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
    });
    expect(byName["zora-mainnet"]).to.include({ chainId: 7777777, api: "planned" });
    expect(byName.oeth).to.include({ contracts: "in-construction", api: "none", contractAddresses: null });
    expect(byName.localhost).to.include({ chainId: 31337, configured: true, rpcUrl: "http://127.0.0.1:8545" });
    expect(res.body.ens).to.deep.equal({
      domain: "idwallet.eth",
      chain: "eth",
      registry: null,
      resolver: null,
      gateway: false,
    });
    // Production RPC URLs may carry API keys: never shown.
    expect(byName.matic).to.not.have.property("rpcUrl");
  });
});
