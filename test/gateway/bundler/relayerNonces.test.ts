import { expect } from "chai";
import { hasNonceGap, inLine, nextRelayerNonce } from "../../../gateway/bundler/builtin/relayerNonces";
import type { Bundle } from "../../../gateway/transactions/bundle";

const RELAYER = "0x00000000000000000000000000000000000000aa";
const OLD_RELAYER = "0x00000000000000000000000000000000000000bb";

/** A pending bundle of `relayer` at `nonce`. */
const pending = (nonce: number, relayer = RELAYER): Bundle => ({
  id: `${relayer}-${nonce}`,
  chain: "localhost",
  relayer,
  nonce,
  txHashes: ["0x01"],
  rawTx: "0x",
  maxFeePerGas: 1n,
  maxPriorityFeePerGas: 1n,
  status: "pending",
  minedTxHash: undefined,
  blockNumber: undefined,
  sentAt: new Date(0).toISOString(),
});

describe("Relayer nonces of bundles sent behind pending ones", () => {
  it("takes the mined nonce when nothing is pending, and the one after the pending bundles otherwise", () => {
    expect(nextRelayerNonce(7, [], RELAYER)).to.equal(7);
    expect(nextRelayerNonce(7, [pending(7), pending(8)], RELAYER)).to.equal(9);
  });

  it("fills the gap a bundle dropped between pending ones left, instead of going above it", () => {
    const around = [pending(7), pending(9)];
    expect(nextRelayerNonce(7, around, RELAYER)).to.equal(8);
    expect(hasNonceGap(7, around, RELAYER)).to.equal(true);
    expect(hasNonceGap(7, [pending(7), pending(8), pending(9)], RELAYER)).to.equal(false);
  });

  it("counts a gap at the bottom too (the lowest pending bundle dropped), and none once it is mined past", () => {
    expect(hasNonceGap(7, [pending(8)], RELAYER)).to.equal(true);
    expect(hasNonceGap(9, [pending(8)], RELAYER)).to.equal(false);
  });

  it("ignores a former relayer's bundles, whose nonces are another account's", () => {
    expect(nextRelayerNonce(3, [pending(3, OLD_RELAYER), pending(4, OLD_RELAYER)], RELAYER)).to.equal(3);
    expect(hasNonceGap(3, [pending(5, OLD_RELAYER)], RELAYER)).to.equal(false);
  });

  it("holds a bundle behind a gap out of line (no fee bump for a nonce that cannot be mined yet)", () => {
    const lined = inLine(new Map([[RELAYER, 7]]), [pending(7), pending(8), pending(10)]);
    expect([...lined].sort()).to.deep.equal([pending(7).id, pending(8).id]);
  });
});
