import { expect } from "chai";
import { Interface, hexlify, randomBytes } from "ethers";
import { artifacts } from "hardhat";
import { walletCallData } from "../../../gateway/userop/callData";
import type { TxCall } from "../../../gateway/transactions/txRecord";

/** A call with random parts: a target, a value up to 2^256 − 1, data of `bytes` bytes. */
function randomCall(bytes: number): TxCall {
  const value = BigInt(hexlify(randomBytes(32))) >> BigInt(Math.floor(Math.random() * 256));
  return { to: hexlify(randomBytes(20)), value, data: hexlify(randomBytes(bytes)) };
}

describe("walletCallData: Kernel call data encoded directly", () => {
  let kernel: Interface;
  before(async () => {
    // The compiled KernelAccount's own ABI: the encoding must be what the contract decodes.
    kernel = new Interface((await artifacts.readArtifact("KernelAccount")).abi);
  });

  /** What ethers' ABI coder makes of the same calls against the contract's ABI. */
  const byAbiCoder = (calls: TxCall[], operation: number): string =>
    calls.length === 1
      ? kernel.encodeFunctionData("execute", [calls[0]!.to, calls[0]!.value, calls[0]!.data, operation])
      : kernel.encodeFunctionData("executeBatch", [calls.map((c) => [c.to, c.value, c.data, operation])]);

  it("equals the ABI coder's encoding for one call and for batches, calls and delegatecalls, any data length", () => {
    for (const count of [1, 2, 3, 7]) {
      for (const lengths of [[0], [1], [31], [32], [33], [68], [200]]) {
        for (const delegatecall of [false, true]) {
          const calls = Array.from({ length: count }, (_, i) => randomCall(lengths[0]! + i * 5));
          expect(walletCallData("kernel", calls, delegatecall)).to.equal(byAbiCoder(calls, delegatecall ? 1 : 0));
        }
      }
    }
  });

  it("encodes a checksummed or upper-case target and upper-case data as the ABI coder does", () => {
    const call = { to: "0x52908400098527886E0F7030069857D2E4169EE7", value: 0n, data: "0xABCDEF" };
    expect(walletCallData("kernel", [call], false)).to.equal(byAbiCoder([call], 0));
  });

  it("refuses what cannot be encoded: a bad target, odd or non-hex data, a value out of uint256", () => {
    const good = randomCall(4);
    for (const bad of [
      { ...good, to: "0x1234" },
      { ...good, data: "0xabc" },
      { ...good, data: "0xzz" },
      { ...good, value: -1n },
      { ...good, value: 1n << 256n },
    ]) {
      expect(() => walletCallData("kernel", [bad], false)).to.throw();
      expect(() => walletCallData("kernel", [good, bad], false)).to.throw();
    }
  });
});
