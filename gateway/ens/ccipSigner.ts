import { AbiCoder, getBytes, hexlify } from "ethers";
import type { CustodySigner } from "../custody/custodySigner";
import { keccak256Bytes } from "../identity/keccak";

/** Signs gateway answers with one key; its address must be in the ENS resolver's signer set. */
export interface CcipSigner {
  readonly address: string;
  /** `abi.encode(bytes result, uint64 expires, bytes sig)`, the response resolveWithProof checks. */
  signResponse(target: string, expires: number, request: string, result: string): Promise<string>;
}

const EXPIRES_BYTES = 8;
const abi = AbiCoder.defaultAbiCoder();
const SIGNATURE_BYTES = 65;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** The bytes of 0x-hex, as ethers' getBytes (and with its error for anything else), without its per-byte parsing. */
const hexBytes = (hex: string): Uint8Array =>
  typeof hex === "string" && HEX_BYTES.test(hex) ? Buffer.from(hex.slice(2), "hex") : getBytes(hex);

/** A 32-byte ABI word holding a non-negative integer, as hex. */
const word = (n: number | bigint): string => n.toString(16).padStart(64, "0");

/** The ABI tail of a `bytes` value: its length, then the bytes right-padded to whole words. */
const bytesTail = (bytes: Uint8Array): string =>
  word(bytes.length) +
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("hex")
    .padEnd(Math.ceil(bytes.length / 32) * 64, "0");

/**
 * `abi.encode(bytes result, uint64 expires, bytes sig)`, written out: ethers' AbiCoder spends ~100 µs a
 * call on it. Expiries ethers would refuse as numbers (not safe integers) still go through the AbiCoder.
 */
function encodeResponse(result: Uint8Array, expires: number, sig: Uint8Array): string {
  if (!Number.isSafeInteger(expires)) return abi.encode(["bytes", "uint64", "bytes"], [result, expires, hexlify(sig)]);
  const resultTail = bytesTail(result);
  // Three head words, then the tails: result's offset is 0x60, sig's follows result's tail.
  return `0x${word(96)}${word(expires)}${word(96 + resultTail.length / 2)}${resultTail}${bytesTail(sig)}`;
}

/**
 * Gateway answers signed by `signer` (a key in this process, or in an HSM). Signatures are 65-byte r ‖ s ‖ v over the
 * raw digest keccak256(0x1900 ‖ target ‖ expires(uint64) ‖ keccak256(request) ‖ keccak256(result)).
 */
export function createCcipSigner(signer: CustodySigner): CcipSigner {
  const preimage = Buffer.alloc(2 + 20 + EXPIRES_BYTES + 32 + 32);
  preimage[0] = 0x19;
  preimage[1] = 0x00;
  return {
    address: signer.address,
    async signResponse(target, expires, request, result) {
      preimage.set(hexBytes(target), 2);
      preimage.writeBigUInt64BE(BigInt(expires), 22);
      keccak256Bytes(hexBytes(request)).copy(preimage, 30);
      const resultBytes = hexBytes(result);
      keccak256Bytes(resultBytes).copy(preimage, 62);
      // The digest is taken before the first await: the preimage buffer is this signer's, reused by the next answer.
      const sig = hexBytes(await signer.sign(keccak256Bytes(preimage)));
      if (sig.length !== SIGNATURE_BYTES) throw new Error(`${signer.description} returned no 65-byte signature`);
      return encodeResponse(resultBytes, expires, sig);
    },
  };
}
