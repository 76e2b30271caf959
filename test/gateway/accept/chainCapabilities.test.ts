import { rawKeyAddresses } from "../../helpers/keySigners";
import { expect } from "chai";
import { JsonRpcProvider, computeAddress } from "ethers";
import { chainCapabilities } from "../../../gateway/accept/chainCapabilities";
import type { ChainClient } from "../../../gateway/chains/clients";
import { CHAINS } from "../../../gateway/chains/registry";
import { loadConfig } from "../../../gateway/config/load";

const OPERATOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const SAFE_CONTRACTS = {
  singleton: "0x3018905E1574bf4F0aC025302eC7887B3d5FEf8F",
  proxyFactory: "0x8E9D7590AA7c979C7f07158C03571Fa3676C420e",
  fallbackHandler: "0xC2BAB1eE3725aF1Aa350DA6Be9186720E2Bb94e4",
  multiSendCallOnly: "0x7CE5B0cc8Bb8946F756C8E94280B4c2C9c9d3525",
};
const ENV = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
  TEST_DEPLOYMENT: "true",
  RPC_URL_LOCALHOST: "http://localhost.test",
  RPC_URL_MATIC: "http://matic.test",
  RPC_URL_ARB1: "http://arb1.test",
  BUNDLER_URL_ARB1: "http://bundler.test",
  RPC_URL_ETH: "http://eth.test",
  RPC_URL_LINEA: "http://linea.test",
  SAFE_OPERATOR_SIGNER_KEY: OPERATOR_KEY,
  RELAYER_SIGNER_KEY: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  CONTRACT_SAFE_SINGLETON: SAFE_CONTRACTS.singleton,
  CONTRACT_SAFE_PROXY_FACTORY: SAFE_CONTRACTS.proxyFactory,
  CONTRACT_SAFE_FALLBACK_HANDLER: SAFE_CONTRACTS.fallbackHandler,
  CONTRACT_SAFE_MULTISEND_CALL_ONLY: SAFE_CONTRACTS.multiSendCallOnly,
};

/** A client per configured chain, as start-up builds them; never called. */
const clientsOf = (names: readonly string[]): Map<string, ChainClient> =>
  new Map(
    names.map((name) => {
      const chainId = CHAINS.find((c) => c.name === name)!.chainId;
      return [name, { name, chainId, provider: new JsonRpcProvider("http://127.0.0.1:9", chainId) }];
    }),
  );

describe("chain capabilities: what each chain can do, decided once", () => {
  const configured = ["localhost", "matic", "arb1", "eth", "linea"];
  // matic runs no worker (as if a setting its worker needs were missing); the others do.
  const config = loadConfig(ENV);
  const table = chainCapabilities(
    config,
    clientsOf(configured),
    new Set(["localhost", "arb1", "eth", "linea"]),
    rawKeyAddresses(config),
  );
  const row = (name: string) => {
    const { chain, sign, dust, safes, ...rest } = table.get(name)!;
    expect(chain.name).to.equal(name);
    return { ...rest, sign: sign?.name, dust: dust?.name, safes };
  };
  const operator = computeAddress(OPERATOR_KEY);

  it("has a row for every chain of the registry, in its order, and none for other names", () => {
    expect([...table.keys()]).to.deep.equal(CHAINS.map((c) => c.name));
    expect(table.get("nowhere")).to.equal(undefined);
  });

  it("the local chain with a worker and the relayer does everything", () => {
    expect(row("localhost")).to.deep.equal({
      configured: true,
      served: true,
      resolve: true,
      sign: "localhost",
      userOperations: "built-in bundler",
      safeContracts: SAFE_CONTRACTS,
      safes: { contracts: SAFE_CONTRACTS, operator },
      dust: "localhost",
    });
  });

  it("an external bundler takes UserOperations but no Safe requests; no worker, neither", () => {
    expect(row("arb1")).to.deep.include({ userOperations: "external bundler", safes: undefined });
    expect(row("arb1").safeContracts).to.deep.equal(SAFE_CONTRACTS);
    expect(row("matic")).to.deep.include({ served: true, sign: "matic", userOperations: undefined, safes: undefined });
  });

  it("a chain the API does not serve (spec planned) signs and sends no wallet operations, yet serves Safes and dust", () => {
    expect(row("eth")).to.deep.include({
      served: false,
      sign: undefined,
      userOperations: undefined,
      safes: { contracts: SAFE_CONTRACTS, operator },
      dust: "eth",
    });
  });

  it("non-Safe chains have no Safe contracts; unconfigured chains only resolve; chains in construction do not", () => {
    expect(row("linea")).to.deep.include({
      userOperations: "built-in bundler",
      safeContracts: undefined,
      safes: undefined,
    });
    expect(row("base")).to.deep.equal({
      configured: false,
      served: false,
      resolve: true,
      sign: undefined,
      userOperations: undefined,
      safeContracts: undefined,
      safes: undefined,
      dust: undefined,
    });
    expect(row("oeth").resolve).to.equal(false);
  });

  it("without the operator key no chain serves Safes, though the contracts are still reported", () => {
    const bareConfig = loadConfig({ ...ENV, SAFE_OPERATOR_SIGNER_KEY: "" });
    const bare = chainCapabilities(
      bareConfig,
      clientsOf(configured),
      new Set(["localhost"]),
      rawKeyAddresses(bareConfig),
    );
    expect(bare.get("localhost")!.safes).to.equal(undefined);
    expect(bare.get("localhost")!.safeContracts).to.deep.equal(SAFE_CONTRACTS);
  });
});
