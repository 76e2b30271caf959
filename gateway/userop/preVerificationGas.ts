import { concatHex } from "./hexData";
import { hexToBytes } from "./words";
import type { PackedUserOperation } from "./packedUserOperation";

/** The reference bundler's constants (eth-infinitism `calcPreVerificationGas`), for a bundle of one. */
const FIXED = 21_000;
const PER_OP = 18_300;
const PER_OP_WORD = 4;
const ZERO_BYTE = 4;
const NON_ZERO_BYTE = 16;
/** Head of the ABI-encoded operation tuple: 9 words (4 of them offsets of the dynamic fields). */
const HEAD_WORDS = 9;

/** Call-data gas of `bytes`: 4 per zero byte, 16 per other byte. */
function bytesCost(bytes: Uint8Array): number {
  let cost = 0;
  for (const byte of bytes) cost += byte === 0 ? ZERO_BYTE : NON_ZERO_BYTE;
  return cost;
}

/** Call-data gas of one 32-byte ABI word holding `hex` right-aligned (an address, a uint or a bytes32). */
const wordCost = (hex: string): number => {
  const bytes = hexToBytes(hex.length % 2 === 0 ? hex : `0x0${hex.slice(2)}`);
  return bytesCost(bytes) + (32 - bytes.length) * ZERO_BYTE;
};

/**
 * preVerificationGas: the gas of an operation the EntryPoint cannot meter, chiefly its call data in the bundle
 * transaction. Counted as the reference bundler does (as if alone in its bundle), so external bundlers accept it:
 * over `abi.encode(op)` (head words, then each dynamic field's length word and zero-padded bytes), counted field
 * by field instead of encoding the whole tuple.
 */
export function preVerificationGas(op: PackedUserOperation): bigint {
  let cost = 0;
  let words = HEAD_WORDS;
  cost += wordCost(op.sender) + wordCost(`0x${op.nonce.toString(16)}`);
  cost += wordCost(op.accountGasLimits) + wordCost(`0x${op.preVerificationGas.toString(16)}`) + wordCost(op.gasFees);
  let offset = HEAD_WORDS * 32;
  for (const field of [op.initCode, op.callData, op.paymasterAndData, op.signature]) {
    const bytes = hexToBytes(field);
    const padded = Math.ceil(bytes.length / 32) * 32;
    cost += wordCost(`0x${offset.toString(16)}`); // the field's offset in the head
    cost += wordCost(`0x${bytes.length.toString(16)}`) + bytesCost(bytes) + (padded - bytes.length) * ZERO_BYTE;
    words += 1 + padded / 32;
    offset += 32 + padded;
  }
  return BigInt(cost + FIXED + PER_OP + PER_OP_WORD * words);
}

const WORST_WORD = `0x${"ff".repeat(32)}`;

/**
 * preVerificationGas of an operation with these fields and the costliest value of every other (gas limits, fees, a
 * SponsorPaymaster paymasterAndData, a 65-byte signature; or, with `custodyProofDepth`, a CustodyPaymaster
 * paymasterAndData with that many proof entries and no signature), so never below that of any operation built from
 * them: each non-zero byte costs at least what a zero byte does (EIP-2028).
 */
export function preVerificationGasBound(
  base: Pick<PackedUserOperation, "sender" | "nonce" | "initCode" | "callData">,
  paymaster: string,
  custodyProofDepth?: number,
): bigint {
  const proof = custodyProofDepth === undefined ? "0x" : `0x${"ff".repeat(32 * custodyProofDepth)}`;
  return preVerificationGas({
    ...base,
    accountGasLimits: WORST_WORD,
    preVerificationGas: (1n << 64n) - 1n,
    gasFees: WORST_WORD,
    // paymaster(20) ‖ gas limits(32) ‖ validUntil, validAfter(12) ‖ signature(65) [‖ proof(32 each)]
    paymasterAndData: concatHex([paymaster, WORST_WORD, `0x${"ff".repeat(12 + 65)}`, proof]),
    signature: custodyProofDepth === undefined ? `0x${"ff".repeat(65)}` : "0x",
  });
}
