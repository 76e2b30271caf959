import { expect } from "chai";
import { concat, dataLength, dataSlice, hexlify, randomBytes, toBeHex, zeroPadValue } from "ethers";
import { concatHex, hexLength, sliceHex, uintHex } from "../../../gateway/userop/hexData";

/** Random bytes as hex, in lower or mixed case. */
const randomHex = (length: number, mixed = false): string => {
  const hex = hexlify(randomBytes(length));
  return mixed ? `0x${[...hex.slice(2)].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("")}` : hex;
};

/** What `f` throws, or undefined. */
const thrown = (f: () => unknown): unknown => {
  try {
    f();
    return undefined;
  } catch (error) {
    return error;
  }
};

describe("hexData: byte strings as strings, as ethers' helpers give them", () => {
  it("concatenates, measures and slices as concat, dataLength and dataSlice do, any case and length", () => {
    for (let round = 0; round < 200; round++) {
      const parts = Array.from({ length: 1 + (round % 4) }, (_, i) =>
        randomHex((round * 7 + i * 13) % 90, i % 2 === 1),
      );
      expect(concatHex(parts)).to.equal(concat(parts));
      const whole = concat(parts);
      expect(hexLength(parts[0]!)).to.equal(dataLength(parts[0]!));
      const length = dataLength(whole);
      const start = round % (length + 1);
      const end = start + ((round * 3) % (length - start + 1));
      expect(sliceHex(whole, start, end)).to.equal(dataSlice(whole, start, end));
    }
  });

  it("pads unsigned integers as zeroPadValue(toBeHex(value), bytes) does", () => {
    for (const bytes of [6, 16, 32]) {
      for (let round = 0; round < 100; round++) {
        const value = BigInt(hexlify(randomBytes(bytes))) >> BigInt(round % (bytes * 8));
        expect(uintHex(value, bytes)).to.equal(zeroPadValue(toBeHex(value), bytes));
      }
      expect(uintHex(0, bytes)).to.equal(zeroPadValue(toBeHex(0), bytes));
    }
  });

  it("refuses what ethers refuses: no 0x, odd length, non-hex, a slice past the end, a value too large or negative", () => {
    for (const bad of ["abcd", "0xabc", "0xzz"]) {
      expect(
        thrown(() => concatHex([bad])),
        bad,
      ).to.be.instanceOf(Error);
      expect(
        thrown(() => concat([bad])),
        bad,
      ).to.be.instanceOf(Error);
      expect(
        thrown(() => hexLength(bad)),
        bad,
      ).to.be.instanceOf(Error);
    }
    expect(thrown(() => sliceHex("0x0102", 0, 3))).to.be.instanceOf(Error);
    expect(thrown(() => dataSlice("0x0102", 0, 3))).to.be.instanceOf(Error);
    expect(thrown(() => uintHex(1n << 48n, 6))).to.be.instanceOf(Error);
    expect(thrown(() => zeroPadValue(toBeHex(1n << 48n), 6))).to.be.instanceOf(Error);
    expect(thrown(() => uintHex(-1n, 6))).to.be.instanceOf(Error);
  });
});
