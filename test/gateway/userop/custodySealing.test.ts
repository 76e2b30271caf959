import { expect } from "chai";
import { Signature } from "ethers";
import { MAX_PROOF_LENGTH } from "../../../gateway/userop/custodyRoot";
import { placeholderCustodyData, simulationCustodyData } from "../../../gateway/userop/custodySealing";

const terms = {
  paymaster: "0x00000000000000000000000000000000000000aa",
  verificationGasLimit: 60_000n,
  postOpGasLimit: 0n,
  validUntil: 2_000_000_000,
  validAfter: 0,
};
/** paymaster (20) | two gas limits (16 each) | validUntil (6) | validAfter (6) | signature (65) | proof. */
const SIGNATURE_AT = 20 + 16 + 16 + 6 + 6;
const signatureOf = (data: string) => `0x${data.slice(2 + 2 * SIGNATURE_AT, 2 + 2 * (SIGNATURE_AT + 65))}`;

describe("Simulated custodial operations (code 2.1): signed by no custody key, and not signed per simulation", () => {
  it("carry a well-formed signature, the same on every simulation: nothing is signed per operation", () => {
    const first = simulationCustodyData(terms, 3);
    const second = simulationCustodyData({ ...terms, validUntil: 2_000_000_001 }, 3);
    expect(signatureOf(first)).to.equal(signatureOf(second));
    // A real (r, s, v): ecrecover finds some address, as for a real root, so the validation costs what it will.
    expect(() => Signature.from(signatureOf(first))).not.to.throw();
  });

  it("are measured as sealed ones: the same length as the placeholder of each proof depth", () => {
    for (let depth = 0; depth <= MAX_PROOF_LENGTH; depth++) {
      expect(simulationCustodyData(terms, depth).length).to.equal(placeholderCustodyData(terms, depth).length);
    }
  });

  it("refuse a proof deeper than the paymaster reads", () => {
    expect(() => simulationCustodyData(terms, MAX_PROOF_LENGTH + 1)).to.throw(RangeError);
  });
});
