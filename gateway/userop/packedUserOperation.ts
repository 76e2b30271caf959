import { type BytesLike, hexlify } from "ethers";
import { concatHex, uintHex } from "./hexData";
import type { PackedUserOperation } from "../transactions/packedUserOperation";
import { hexWord, keccakOfHex, keccakOfWords, uintWord } from "./words";

export type { PackedUserOperation };

/** Packs two uint128 values into one bytes32, `high` first (accountGasLimits, gasFees). */
export function packUint128Pair(high: bigint, low: bigint): string {
  const max = (1n << 128n) - 1n;
  if (high < 0n || low < 0n || high > max || low > max) throw new RangeError("value does not fit in uint128");
  return uintHex((high << 128n) | low, 32);
}

/** accountGasLimits of a UserOperation. */
export const packAccountGasLimits = (verificationGasLimit: bigint, callGasLimit: bigint): string =>
  packUint128Pair(verificationGasLimit, callGasLimit);

/** gasFees of a UserOperation. */
export const packGasFees = (maxPriorityFeePerGas: bigint, maxFeePerGas: bigint): string =>
  packUint128Pair(maxPriorityFeePerGas, maxFeePerGas);

/** initCode: the factory address followed by its call data. */
export const packInitCode = (factory: string, factoryData: BytesLike): string =>
  concatHex([factory, typeof factoryData === "string" ? factoryData : hexlify(factoryData)]);

/** EntryPoint v0.7 `getUserOpHash`, computed offline: keccak(keccak(packed fields), entryPoint, chainId). */
export function userOperationHash(op: PackedUserOperation, entryPoint: string, chainId: bigint): string {
  const fields = keccakOfWords([
    hexWord(op.sender),
    uintWord(op.nonce),
    keccakOfHex(op.initCode),
    keccakOfHex(op.callData),
    hexWord(op.accountGasLimits),
    uintWord(op.preVerificationGas),
    hexWord(op.gasFees),
    keccakOfHex(op.paymasterAndData),
  ]);
  return keccakOfWords([hexWord(fields), hexWord(entryPoint), uintWord(chainId)]);
}
