import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigError, loadConfig } from "../../../gateway/config/load";
import { safeContractsFor } from "../../../gateway/config/safeSettings";

const REQUIRED = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
  // The default SMS provider (the outbox) is refused outside a test deployment.
  TEST_DEPLOYMENT: "true",
};

/** Safe 1.5.0 contracts as set by the CONTRACT_SAFE_* variables (any addresses will do). */
const SAFE_ENV = {
  CONTRACT_SAFE_SINGLETON: "0x3018905e1574bf4f0ac025302ec7887b3d5fef8f",
  CONTRACT_SAFE_PROXY_FACTORY: "0x8E9D7590AA7c979C7f07158C03571Fa3676C420e",
  CONTRACT_SAFE_FALLBACK_HANDLER: "0xC2BAB1eE3725aF1Aa350DA6Be9186720E2Bb94e4",
  CONTRACT_SAFE_MULTISEND_CALL_ONLY: "0x7CE5B0cc8Bb8946F756C8E94280B4c2C9c9d3525",
};
const SAFE_CONTRACTS = {
  singleton: "0x3018905E1574bf4F0aC025302eC7887B3d5FEf8F",
  proxyFactory: "0x8E9D7590AA7c979C7f07158C03571Fa3676C420e",
  fallbackHandler: "0xC2BAB1eE3725aF1Aa350DA6Be9186720E2Bb94e4",
  multiSendCallOnly: "0x7CE5B0cc8Bb8946F756C8E94280B4c2C9c9d3525",
};
const OPERATOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

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
    expect(config.resolver).to.deep.equal({ requireAuth: true, maxIds: 1000, anonymousPerMinute: 600 });
    expect(config.databasePath).to.equal(path.join("data", "idwallet.sqlite"));
    expect(config.chains).to.deep.equal({ "arb-goerli": { rpcUrl: "http://x.test" } });
    // Addresses come out checksummed whatever case went in.
    expect(config.contracts.kernelFactory).to.equal("0xD5EcfF5E0576a247636CF1BC15859c8bAdCe375f");
  });

  it("refuses a renamed setting by its old name rather than ignoring it", () => {
    const message = configError({ ...REQUIRED, CONTRACT_OFFCHAIN_RESOLVER: "0x" + "11".repeat(20) });
    expect(message).to.equal("CONTRACT_OFFCHAIN_RESOLVER is now called CONTRACT_ENS_RESOLVER; rename it");
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

  it("reads the dust interface's settings, naming a bad one by its variable", () => {
    const config = loadConfig({ ...REQUIRED, DUST_CHAIN: "matic", DUST_PORT: "3002", DUST_LOOKBACK_BLOCKS: "5000" });
    expect(config.dust).to.deep.include({
      chain: "matic",
      port: 3002,
      lookbackBlocks: 5000,
      priceMaxAgeSeconds: 86_400,
    });
    expect(config.dust.multicall3).to.equal("0xcA11bde05977b3631167028862bE2a173976CA11");
    const message = configError({ ...REQUIRED, DUST_CHAIN: "nowhere", CONTRACT_MULTICALL3: "0x12" });
    expect(message).to.include("DUST_CHAIN:").and.include("CONTRACT_MULTICALL3:");
  });

  it("reads the user-proof settings: provider proofs an hour old at most, unbound phone tokens taken", () => {
    expect(loadConfig(REQUIRED).proofs).to.deep.equal({ providerMaxAgeSeconds: 3600, userTokensRequireApp: false });
    const config = loadConfig({ ...REQUIRED, PROVIDER_PROOF_MAX_AGE_SECONDS: "300", USER_TOKENS_REQUIRE_APP: "true" });
    expect(config.proofs).to.deep.equal({ providerMaxAgeSeconds: 300, userTokensRequireApp: true });
    const message = configError({ ...REQUIRED, PROVIDER_PROOF_MAX_AGE_SECONDS: "86401", USER_TOKENS_REQUIRE_APP: "x" });
    expect(message).to.include("PROVIDER_PROOF_MAX_AGE_SECONDS:").and.include("USER_TOKENS_REQUIRE_APP:");
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

  it("bounds each call by TX_MAX_CALL_BYTES, never above the request's total, and caps preVerificationGas", () => {
    expect(loadConfig(REQUIRED).transactions).to.include({
      maxCallBytes: 32_768,
      maxCallDataBytes: 32_768,
      maxPreVerificationGas: 1_000_000,
    });
    // Unset, the per-call bound follows a lower total; set above it, start-up stops naming it.
    expect(loadConfig({ ...REQUIRED, TX_MAX_CALL_DATA_BYTES: "8000" }).transactions.maxCallBytes).to.equal(8000);
    expect(configError({ ...REQUIRED, TX_MAX_CALL_BYTES: "8001", TX_MAX_CALL_DATA_BYTES: "8000" })).to.include(
      "TX_MAX_CALL_BYTES: TX_MAX_CALL_BYTES may not exceed TX_MAX_CALL_DATA_BYTES",
    );
    expect(configError({ ...REQUIRED, TX_MAX_PRE_VERIFICATION_GAS: "99999" })).to.include(
      "TX_MAX_PRE_VERIFICATION_GAS:",
    );
  });

  it("needs the owner account wherever wallets are signed for (the API refuses calls to it only if it knows it)", () => {
    const message = configError({ ...REQUIRED, WALLET_SIGNER_KEY: OPERATOR_KEY });
    expect(message).to.include("CONTRACT_OWNER_ACCOUNT:");
    const config = loadConfig({
      ...REQUIRED,
      WALLET_SIGNER_KEY: OPERATOR_KEY,
      CONTRACT_OWNER_ACCOUNT: SAFE_CONTRACTS.singleton,
    });
    expect(config.contracts.ownerAccount).to.equal(SAFE_CONTRACTS.singleton);
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

  it("has no Safe settings unless given, so existing configurations stay valid", () => {
    const config = loadConfig(REQUIRED);
    expect(config.safe).to.deep.equal({ contracts: {}, chains: {} });
    expect(safeContractsFor(config, "matic")).to.equal(undefined);
  });

  it("reads the Safe operator key and contracts, a chain's own address winning over the global one", () => {
    const override = "0xB29734302dEE8d6b0b42692355C190b79eb557B2";
    const config = loadConfig({
      ...REQUIRED,
      ...SAFE_ENV,
      SAFE_OPERATOR_SIGNER_KEY: OPERATOR_KEY,
      CONTRACT_SAFE_FALLBACK_HANDLER_ARB1: override.toLowerCase(),
    });
    expect(config.safe.operatorKey).to.equal(OPERATOR_KEY);
    expect(config.safe.contracts).to.deep.equal(SAFE_CONTRACTS);
    expect(config.safe.chains).to.deep.equal({ arb1: { fallbackHandler: override } });
    expect(safeContractsFor(config, "matic")).to.deep.equal(SAFE_CONTRACTS);
    expect(safeContractsFor(config, "arb1")).to.deep.equal({ ...SAFE_CONTRACTS, fallbackHandler: override });
  });

  it("serves a chain's Safe contracts only when all four addresses are known", () => {
    const { CONTRACT_SAFE_MULTISEND_CALL_ONLY: multiSend, ...three } = SAFE_ENV;
    const config = loadConfig({ ...REQUIRED, ...three, CONTRACT_SAFE_MULTISEND_CALL_ONLY_GOR: multiSend });
    expect(safeContractsFor(config, "matic")).to.equal(undefined);
    expect(safeContractsFor(config, "gor")).to.deep.equal(SAFE_CONTRACTS);
  });

  it("names a bad Safe setting by its environment variable", () => {
    const message = configError({
      ...REQUIRED,
      ...SAFE_ENV,
      SAFE_OPERATOR_SIGNER_KEY: "0x1234",
      CONTRACT_SAFE_PROXY_FACTORY: "0x8e9d7590aa7c979c7f07158c03571fa3676c420",
      CONTRACT_SAFE_SINGLETON_LINEA_TESTNET: "0x3018905e1574bf4f0ac025302ec7887b3d5fef8f",
      CONTRACT_SAFE_MULTISEND_CALL_ONLY_MATICMUM: "multisend",
    });
    expect(message).to.include("SAFE_OPERATOR_SIGNER_KEY: a private key: 0x and 64 hex digits");
    expect(message).to.include("CONTRACT_SAFE_PROXY_FACTORY: an EVM address: 0x and 40 hex digits");
    expect(message).to.include("CONTRACT_SAFE_MULTISEND_CALL_ONLY_MATICMUM: an EVM address");
    // linea-testnet serves no Safe accounts: it has no Safe settings, and its variable is ignored.
    expect(message).to.not.include("LINEA_TESTNET");
  });

  it("refuses Safe contracts for a chain that serves no Safe accounts", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-config-"));
    const file = path.join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ safe: { chains: { base: { singleton: SAFE_CONTRACTS.singleton } } } }));
    expect(configError({ ...REQUIRED, CONFIG_FILE: file })).to.include("safe.chains.base: not a Safe chain");
  });

  it("reads the token endpoint's limits, 30 per client id and 60 per address a minute by default", () => {
    expect(loadConfig(REQUIRED).authLimits).to.deep.equal({ perClientPerMinute: 30, perIpPerMinute: 60 });
    const config = loadConfig({ ...REQUIRED, AUTH_PER_CLIENT_PER_MINUTE: "5", AUTH_PER_IP_PER_MINUTE: "500" });
    expect(config.authLimits).to.deep.equal({ perClientPerMinute: 5, perIpPerMinute: 500 });
    expect(configError({ ...REQUIRED, AUTH_PER_CLIENT_PER_MINUTE: "0" })).to.include("AUTH_PER_CLIENT_PER_MINUTE:");
  });

  it("takes a HEALTH_ADMIN_TOKEN of at least 32 characters, none by default", () => {
    expect(loadConfig(REQUIRED).healthAdminToken).to.equal(undefined);
    const token = "h".repeat(32);
    expect(loadConfig({ ...REQUIRED, HEALTH_ADMIN_TOKEN: token }).healthAdminToken).to.equal(token);
    expect(configError({ ...REQUIRED, HEALTH_ADMIN_TOKEN: "short" })).to.include("HEALTH_ADMIN_TOKEN: at least 32");
  });

  it("reads SECRETS_KEY and SECRETS_KEY_PREVIOUS as 32-byte keys, none by default", () => {
    expect(loadConfig(REQUIRED).secrets).to.deep.equal({});
    const [key, previousKey] = ["a1".repeat(32), Buffer.alloc(32, 7).toString("base64")];
    const config = loadConfig({ ...REQUIRED, SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: previousKey });
    expect(config.secrets).to.deep.equal({ key, previousKey });
    expect(configError({ ...REQUIRED, SECRETS_KEY: "a-passphrase-is-not-a-key" })).to.include(
      "SECRETS_KEY: 32 random bytes",
    );
    expect(configError({ ...REQUIRED, SECRETS_KEY_PREVIOUS: key })).to.include(
      "SECRETS_KEY_PREVIOUS: needs SECRETS_KEY",
    );
    expect(configError({ ...REQUIRED, SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: key })).to.include(
      "SECRETS_KEY_PREVIOUS: is the same as SECRETS_KEY",
    );
  });

  it("reads WEBHOOK_DNS_SERVERS as nameserver addresses (with ports), the system's by default, and refuses a name", () => {
    expect(loadConfig(REQUIRED).webhooks.dnsServers).to.deep.equal([]);
    const servers = "9.9.9.9, 127.0.0.1:5353, 2620:fe::fe, [::1]:5353";
    expect(loadConfig({ ...REQUIRED, WEBHOOK_DNS_SERVERS: servers }).webhooks.dnsServers).to.deep.equal([
      "9.9.9.9",
      "127.0.0.1:5353",
      "2620:fe::fe",
      "[::1]:5353",
    ]);
    // A nameserver named by a host name would need a look-up of its own.
    expect(configError({ ...REQUIRED, WEBHOOK_DNS_SERVERS: "9.9.9.9,dns.quad9.net" })).to.include(
      "WEBHOOK_DNS_SERVERS (item 1): must be an IP address",
    );
  });
});
