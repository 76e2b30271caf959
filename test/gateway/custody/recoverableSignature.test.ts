import { expect } from "chai";
import { Signature, SigningKey, getBytes, keccak256, toBeHex, toUtf8Bytes } from "ethers";
import { toRecoverableSignature } from "../../../gateway/custody/recoverableSignature";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const key = new SigningKey(keccak256(toUtf8Bytes("custody recoverable signature test key")));
const other = new SigningKey(keccak256(toUtf8Bytes("someone else's key")));
const publicKey = getBytes(key.publicKey);

/** r ‖ s of ethers' (low-s) signature of `digest`, with s replaced by n − s when `high`. */
function rawSignature(digest: Uint8Array, high: boolean): { rs: Uint8Array; expected: string } {
  const signature = key.sign(digest);
  const s = high ? N - BigInt(signature.s) : BigInt(signature.s);
  return { rs: getBytes(signature.r + toBeHex(s, 32).slice(2)), expected: signature.serialized };
}

describe("custody: a token's r ‖ s as an Ethereum signature", () => {
  const digests = Array.from({ length: 40 }, (_, i) => getBytes(keccak256(toUtf8Bytes(`digest ${i}`))));

  it("keeps a low-s signature and finds its v (both v values occur)", () => {
    const vs = new Set<number>();
    for (const digest of digests) {
      const { rs, expected } = rawSignature(digest, false);
      expect(toRecoverableSignature(rs, digest, publicKey)).to.equal(expected);
      vs.add(Signature.from(expected).v);
    }
    expect([...vs].sort()).to.deep.equal([27, 28]);
  });

  it("turns a high-s signature (valid ECDSA, refused by Ethereum) into the low-s one with the right v", () => {
    for (const digest of digests) {
      const { rs, expected } = rawSignature(digest, true);
      expect(BigInt(`0x${Buffer.from(rs.subarray(32)).toString("hex")}`) > N / 2n).to.equal(true);
      expect(toRecoverableSignature(rs, digest, publicKey)).to.equal(expected);
    }
  });

  it("refuses a signature made by another key (a token answering with the wrong key)", () => {
    const digest = digests[0]!;
    const foreign = other.sign(digest);
    const rs = getBytes(foreign.r + foreign.s.slice(2));
    expect(toRecoverableSignature(rs, digest, publicKey)).to.equal(undefined);
  });

  it("refuses a signature of another digest", () => {
    const { rs } = rawSignature(digests[0]!, false);
    expect(toRecoverableSignature(rs, digests[1]!, publicKey)).to.equal(undefined);
  });

  it("refuses malformed signatures: r or s zero, s not below n, wrong lengths", () => {
    const digest = digests[0]!;
    const { rs } = rawSignature(digest, false);
    const zeroR = new Uint8Array(rs);
    zeroR.fill(0, 0, 32);
    const bigS = getBytes(`0x${Buffer.from(rs.subarray(0, 32)).toString("hex")}${toBeHex(N, 32).slice(2)}`);
    expect(toRecoverableSignature(zeroR, digest, publicKey)).to.equal(undefined);
    expect(toRecoverableSignature(bigS, digest, publicKey)).to.equal(undefined);
    expect(toRecoverableSignature(rs.subarray(0, 63), digest, publicKey)).to.equal(undefined);
    expect(toRecoverableSignature(rs, digest.subarray(0, 31), publicKey)).to.equal(undefined);
  });
});
