import { rawKeyAddresses } from "../../helpers/keySigners";
import { expect } from "chai";
import { loadConfig } from "../../../gateway/config/load";
import { safeUnavailableReason } from "../../../gateway/config/safeSettings";

const REQUIRED = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
  // The default SMS provider (the outbox) is refused outside a test deployment.
  TEST_DEPLOYMENT: "true",
};

/** Everything a Safe chain (matic) needs: RPC, operator and relayer keys, the four Safe contracts. */
const SERVED = {
  ...REQUIRED,
  RPC_URL_MATIC: "http://matic.test",
  SAFE_OPERATOR_SIGNER_KEY: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  RELAYER_SIGNER_KEY: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  CONTRACT_SAFE_SINGLETON: "0x3018905E1574bf4F0aC025302eC7887B3d5FEf8F",
  CONTRACT_SAFE_PROXY_FACTORY: "0x8E9D7590AA7c979C7f07158C03571Fa3676C420e",
  CONTRACT_SAFE_FALLBACK_HANDLER: "0xC2BAB1eE3725aF1Aa350DA6Be9186720E2Bb94e4",
  CONTRACT_SAFE_MULTISEND_CALL_ONLY: "0x7CE5B0cc8Bb8946F756C8E94280B4c2C9c9d3525",
};

const reason = (env: Record<string, string>, chain = "matic") => {
  const config = loadConfig({ ...SERVED, ...env });
  return safeUnavailableReason(config, chain, rawKeyAddresses(config));
};

describe("safeUnavailableReason", () => {
  it("serves a Safe chain that has everything", () => {
    expect(reason({})).to.equal(undefined);
  });

  it("names what a chain lacks, by the setting to add", () => {
    expect(reason({}, "base")).to.equal("base is not a Safe chain");
    expect(reason({}, "nowhere")).to.equal("nowhere is not a Safe chain");
    expect(reason({ RPC_URL_ARB1: "http://arb1.test" }, "arb1")).to.equal(undefined);
    expect(reason({}, "maticmum")).to.equal("maticmum has no RPC_URL_MATICMUM");
    expect(reason({ SAFE_OPERATOR_SIGNER_KEY: "" })).to.equal(
      "SAFE_OPERATOR_SIGNER (or SAFE_OPERATOR_SIGNER_KEY) is not set",
    );
    expect(reason({ RELAYER_SIGNER_KEY: "" })).to.equal("RELAYER_SIGNER (or RELAYER_SIGNER_KEY) is not set");
    expect(reason({ CONTRACT_SAFE_PROXY_FACTORY: "", CONTRACT_SAFE_MULTISEND_CALL_ONLY: "" })).to.equal(
      "matic has no Safe contract address: set CONTRACT_SAFE_PROXY_FACTORY or CONTRACT_SAFE_PROXY_FACTORY_MATIC, " +
        "CONTRACT_SAFE_MULTISEND_CALL_ONLY or CONTRACT_SAFE_MULTISEND_CALL_ONLY_MATIC",
    );
  });

  it("takes a chain's own contract address in place of a missing global one", () => {
    const env = {
      CONTRACT_SAFE_SINGLETON: "",
      CONTRACT_SAFE_SINGLETON_MATIC: "0xB29734302dEE8d6b0b42692355C190b79eb557B2",
    };
    expect(reason(env)).to.equal(undefined);
  });
});
