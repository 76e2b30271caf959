import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigError, loadConfig } from "../../gateway/config/load";

const REQUIRED = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
};

const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("loadConfig", () => {
  it("applies defaults and reads the environment", () => {
    const config = loadConfig({
      ...REQUIRED,
      PORT: "8080",
      RESOLVER_REQUIRE_AUTH: "yes",
      RPC_URL_ARB_GOERLI: "http://x.test",
    });
    expect(config.port).to.equal(8080);
    expect(config.host).to.equal("127.0.0.1");
    expect(config.resolver).to.deep.equal({ requireAuth: true, maxIds: 1000 });
    expect(config.databasePath).to.equal(path.join("data", "idwallet.sqlite"));
    expect(config.chains).to.deep.equal({ "arb-goerli": { rpcUrl: "http://x.test" } });
    // Addresses come out checksummed whatever case went in.
    expect(config.contracts.kernelFactory).to.equal("0xD5EcfF5E0576a247636CF1BC15859c8bAdCe375f");
  });

  it("takes RPC and bundler URLs over HTTP(S) only", () => {
    const message = configError({
      ...REQUIRED,
      RPC_URL_ARB_GOERLI: "ws://x.test",
      BUNDLER_URL_ARB_GOERLI: "ftp://b.test",
    });
    expect(message).to.include("RPC_URL_ARB_GOERLI: must be an http:// or https:// URL");
    expect(message).to.include("BUNDLER_URL_ARB_GOERLI: must be an http:// or https:// URL");
  });

  it("is frozen", () => {
    const config = loadConfig(REQUIRED);
    expect(Object.isFrozen(config)).to.equal(true);
    expect(Object.isFrozen(config.resolver)).to.equal(true);
  });

  it("names every missing or bad setting by its environment variable", () => {
    const message = configError({ PORT: "70000", LOG_LEVEL: "loud" });
    for (const name of ["PORT", "LOG_LEVEL", "AUTH_TOKEN_SECRET", "CONTRACT_KERNEL_FACTORY", "CONTRACT_BASE_FACTORY"]) {
      expect(message).to.include(`${name}:`);
    }
  });

  it("refuses a short token secret and a mis-checksummed address", () => {
    const message = configError({
      ...REQUIRED,
      AUTH_TOKEN_SECRET: "short",
      CONTRACT_BASE_FACTORY: "0x2D5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
    });
    expect(message).to.include("AUTH_TOKEN_SECRET: at least 32 characters");
    expect(message).to.include("CONTRACT_BASE_FACTORY:");
  });

  it("reads CONFIG_FILE and lets the environment override it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-config-"));
    const file = path.join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ port: 4000, logLevel: "debug", resolver: { maxIds: 50 } }));
    const config = loadConfig({ ...REQUIRED, CONFIG_FILE: file, PORT: "4001" });
    expect(config.port).to.equal(4001);
    expect(config.logLevel).to.equal("debug");
    expect(config.resolver.maxIds).to.equal(50);
  });

  it("refuses a CONFIG_FILE that is not a JSON object", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-config-"));
    const file = path.join(dir, "config.json");
    writeFileSync(file, "[1,2]");
    expect(configError({ ...REQUIRED, CONFIG_FILE: file })).to.match(/^CONFIG_FILE .*not a JSON object/);
  });
});
