import { expect } from "chai";
import { Wallet } from "ethers";
import request from "supertest";
import golden from "../../vectors/addresses.json";
import { CHAINS } from "../../../gateway/chains/registry";
import { type ChainClient, createChainClients } from "../../../gateway/chains/clients";
import { NetworksResponse } from "../../../gateway/routes/networks.schema";
import { TEST_NOW, TEST_OWNER_ACCOUNT, buildTestApp } from "../../helpers/testApp";

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
      served: false,
      reachable: null,
      rpcCheckedAt: null,
      contractAddresses: {
        ownerAccount: TEST_OWNER_ACCOUNT,
        kernelFactory: golden.kernelFactory,
        baseFactory: golden.baseFactory,
      },
      safeContracts: null,
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
    expect(res.body.safeOperator).to.equal(null);
    // Production RPC URLs may carry API keys: never shown.
    expect(byName.matic).to.not.have.property("rpcUrl");
  });

  it("the local stack serves localhost only: no other chain of the registry is claimed served, whatever its spec status", async () => {
    const { app, close } = buildTestApp(
      { chains: { localhost: { rpcUrl: "http://127.0.0.1:8545" } } },
      { chains: createChainClients },
    );
    const res = await request(app).get("/v1/networks").expect(200);
    close();
    expect(() => NetworksResponse.parse(res.body)).to.not.throw();
    expect(res.body.served).to.deep.equal(["localhost"]);
    const entries = res.body.networks as { name: string; configured: boolean; served: boolean; api: string }[];
    expect(entries.filter((n) => n.served).map((n) => n.name)).to.deep.equal(["localhost"]);
    // The spec's "live" rows keep their registry status, but none of them says this deployment serves it.
    expect(entries.filter((n) => n.api === "live" && !n.configured).every((n) => !n.served)).to.equal(true);
    expect(Object.keys(res.body)[0]).to.equal("served");
  });

  it("lists today's testnets beside the spec's, with ERC-3770 short names and chain ids, contracts not yet deployed", async () => {
    const { app, close } = buildTestApp();
    const res = await request(app).get("/v1/networks").expect(200);
    close();
    const byName = Object.fromEntries(res.body.networks.map((n: { name: string }) => [n.name, n]));
    const today = {
      sep: 11155111,
      basesep: 84532,
      opsep: 11155420,
      "arb-sep": 421614,
      "linea-sepolia": 59141,
      polygonamoy: 80002,
    };
    for (const [name, chainId] of Object.entries(today)) {
      expect(byName[name], name).to.include({ chainId, type: "testnet", contracts: "in-construction", served: false });
      expect(byName[name].contractAddresses, name).to.equal(null);
    }
    // Every row of the spec stays, under its spec name.
    for (const name of ["maticmum", "ogor", "arb-goerli", "chi", "linea-testnet", "zora-goerli", "gor"]) {
      expect(byName[name], name).to.include({ type: "testnet", contracts: "deployed" });
    }
  });

  it("an operator who deployed to Sepolia and configured it is served there, with the contract addresses", async () => {
    const { app, close } = buildTestApp(
      { chains: { sep: { rpcUrl: "https://sepolia.example" } } },
      { chains: createChainClients },
    );
    const res = await request(app).get("/v1/networks").expect(200);
    close();
    expect(res.body.served).to.deep.equal(["sep"]);
    const sep = res.body.networks.find((n: { name: string }) => n.name === "sep");
    expect(sep).to.include({ configured: true, served: true, contracts: "in-construction" });
    expect(sep.contractAddresses).to.include({ kernelFactory: golden.kernelFactory });
    // A testnet's RPC URL may carry an API key too: only the local chain's is shown.
    expect(sep).to.not.have.property("rpcUrl");
  });

  it("shows each Safe chain's Safe contracts, a chain's own addresses winning, and the operator's address", async () => {
    const safe = {
      singleton: "0x3018905E1574bf4F0aC025302eC7887B3d5FEf8F",
      proxyFactory: "0x8E9D7590AA7c979C7f07158C03571Fa3676C420e",
      fallbackHandler: "0xC2BAB1eE3725aF1Aa350DA6Be9186720E2Bb94e4",
      multiSendCallOnly: "0x7CE5B0cc8Bb8946F756C8E94280B4c2C9c9d3525",
    };
    const gorHandler = "0xB29734302dEE8d6b0b42692355C190b79eb557B2";
    const operator = Wallet.createRandom();
    const { app, close } = buildTestApp({
      safe: { operatorKey: operator.privateKey, contracts: safe, chains: { gor: { fallbackHandler: gorHandler } } },
    });
    const res = await request(app).get("/v1/networks").expect(200);
    close();
    // The answer is what the OpenAPI document says it is.
    expect(() => NetworksResponse.parse(res.body)).to.not.throw();
    const byName = Object.fromEntries(res.body.networks.map((n: { name: string }) => [n.name, n]));
    expect(byName.matic.safeContracts).to.deep.equal(safe);
    expect(byName.localhost.safeContracts).to.deep.equal(safe);
    expect(byName.gor.safeContracts).to.deep.equal({ ...safe, fallbackHandler: gorHandler });
    // Chains that serve no Safe accounts show none, even with global Safe settings.
    expect(byName.base).to.include({ safe: false, safeContracts: null });
    expect(res.body.safeOperator).to.equal(operator.address);
  });

  it("an outsider hammering GET /v1/networks makes no RPC call per request; a node gone down shows unreachable, still served", async () => {
    const node = { up: true, calls: 0 };
    const localhost = {
      name: "localhost",
      chainId: 31337,
      provider: {
        send: async () => {
          node.calls++;
          if (!node.up) throw new Error("connect ECONNREFUSED 127.0.0.1:8545");
          return "0x10";
        },
      },
    } as unknown as ChainClient;
    const { app, close } = buildTestApp(
      { chains: { localhost: { rpcUrl: "http://127.0.0.1:8545" } } },
      { chains: new Map([["localhost", localhost]]) },
    );
    try {
      const local = async () => {
        const res = await request(app).get("/v1/networks").expect(200);
        expect(() => NetworksResponse.parse(res.body)).to.not.throw();
        return res.body.networks.find((n: { name: string }) => n.name === "localhost");
      };
      // Not checked yet (this app skipped start-up's check): said so, and one check starts behind the answer.
      expect(await local()).to.include({ served: true, reachable: null, rpcCheckedAt: null });
      for (let i = 0; i < 100 && node.calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      for (let i = 0; i < 30; i++) {
        expect(await local()).to.include({ reachable: true, rpcCheckedAt: TEST_NOW.toISOString() });
      }
      expect(node.calls, "RPC calls for 31 requests").to.equal(1);
      // Chains not configured say nothing of an RPC they do not have.
      const res = await request(app).get("/v1/networks").expect(200);
      expect(res.body.networks.find((n: { name: string }) => n.name === "matic")).to.include({
        reachable: null,
        rpcCheckedAt: null,
      });

      node.up = false;
      await request(app).get("/health").expect(503);
      expect(await local()).to.include({ configured: true, served: true, reachable: false });
      expect(node.calls).to.equal(2);
    } finally {
      close();
    }
  });
});
