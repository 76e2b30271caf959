import { expect } from "chai";
import { CallNotAllowedError, checkCallRules } from "../../../gateway/policy/callPolicy";

const WALLET = "0x9AdCf7e0cC3D2B7AeC70b6b329dD38b8759DfC56";
const OWNER = "0x00000000000000000000000000000000000A11cE";
const OTHER = "0x000000000000000000000000000000000000dEaD";
const call = (to: string) => ({ to, value: 0n, data: "0x" });
const rules = { wallet: WALLET, ownerAccount: OWNER, delegatecall: false, delegatecallGranted: false };

/** The refused calls, or [] when the rules let the request through. */
const refusedBy = (calls: { to: string; value: bigint; data: string }[], overrides: Partial<typeof rules> = {}) => {
  try {
    checkCallRules(calls, { ...rules, ...overrides });
    return [];
  } catch (error) {
    if (!(error instanceof CallNotAllowedError)) throw error;
    return error.calls;
  }
};

describe("call rules (unit): what a request may not call from a wallet", () => {
  it("compares targets case-insensitively even when they did not go through the EIP-55 schema", () => {
    expect(refusedBy([call(WALLET.toLowerCase()), call(OWNER.toUpperCase().replace("0X", "0x"))])).to.deep.equal([
      { index: 0, to: WALLET.toLowerCase(), reason: "SELF_CALL" },
      { index: 1, to: "0x00000000000000000000000000000000000A11CE", reason: "OWNER_ACCOUNT_CALL" },
    ]);
    expect(refusedBy([call(OTHER)], { wallet: WALLET.toLowerCase(), ownerAccount: OWNER.toLowerCase() })).to.deep.equal(
      [],
    );
  });

  it("refuses no owner-account call when none is configured, but still the wallet itself", () => {
    expect(refusedBy([call(OWNER), call(WALLET)], { ownerAccount: undefined })).to.deep.equal([
      { index: 1, to: WALLET, reason: "SELF_CALL" },
    ]);
  });

  it("refuses every call of an ungranted delegatecall, and lists a self-call's reasons both", () => {
    expect(refusedBy([call(OTHER), call(WALLET)], { delegatecall: true })).to.deep.equal([
      { index: 0, to: OTHER, reason: "DELEGATECALL_NOT_GRANTED" },
      { index: 1, to: WALLET, reason: "SELF_CALL" },
      { index: 1, to: WALLET, reason: "DELEGATECALL_NOT_GRANTED" },
    ]);
    expect(refusedBy([call(OTHER)], { delegatecall: true, delegatecallGranted: true })).to.deep.equal([]);
  });

  it("is a 403 CALL_NOT_ALLOWED whose problem lists the calls", () => {
    const error = new CallNotAllowedError([{ index: 2, to: WALLET, reason: "SELF_CALL" }]);
    expect([error.status, error.code, error.title, error.message]).to.deep.equal([
      403,
      "CALL_NOT_ALLOWED",
      "Call not allowed",
      "call 2 targets the wallet itself",
    ]);
    expect(error.extensions).to.deep.equal({ calls: [{ index: 2, to: WALLET, reason: "SELF_CALL" }] });
  });
});
