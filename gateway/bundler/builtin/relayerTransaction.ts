import { Transaction } from "ethers";
import type { KeySigner } from "../../custody/keySigner";
import { keccak256Bytes } from "../../identity/keccak";
import { hexToBytes } from "../../userop/words";

/** The fields of an EIP-1559 transaction the relayer sends (no access list, no value beyond `value`). */
export interface RelayerTransactionFields {
  readonly chainId: number | bigint;
  readonly nonce: number;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gasLimit: bigint;
  readonly to: string;
  readonly value: bigint;
  readonly data: string;
}

/** RLP of a byte string (Ethereum Yellow Paper, appendix B). */
function rlpBytes(bytes: Buffer): Buffer {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Buffer.concat([rlpLength(bytes.length, 0x80), bytes]);
}

/** RLP of a list of already encoded items. */
const rlpList = (items: readonly Buffer[]): Buffer => {
  const body = Buffer.concat(items);
  return Buffer.concat([rlpLength(body.length, 0xc0), body]);
};

/** The RLP length prefix: short form below 56 bytes, else the length's own big-endian bytes. */
function rlpLength(length: number, offset: number): Buffer {
  if (length < 56) return Buffer.from([offset + length]);
  const lengthBytes = uintBytes(BigInt(length));
  return Buffer.concat([Buffer.from([offset + 55 + lengthBytes.length]), lengthBytes]);
}

/** A non-negative integer as minimal big-endian bytes (zero is the empty string). */
function uintBytes(value: bigint): Buffer {
  if (value === 0n) return Buffer.alloc(0);
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
}

/** Payload items of the transaction, before the signature. */
const payload = (f: RelayerTransactionFields): Buffer[] => [
  rlpBytes(uintBytes(BigInt(f.chainId))),
  rlpBytes(uintBytes(BigInt(f.nonce))),
  rlpBytes(uintBytes(f.maxPriorityFeePerGas)),
  rlpBytes(uintBytes(f.maxFeePerGas)),
  rlpBytes(uintBytes(f.gasLimit)),
  rlpBytes(hexToBytes(f.to)),
  rlpBytes(uintBytes(f.value)),
  rlpBytes(hexToBytes(f.data)),
  rlpList([]), // access list
];

const TYPE_2 = Buffer.from([0x02]);

/**
 * Signs an EIP-1559 (type 2) transaction of the relayer: RLP written out and the native keccak and secp256k1
 * bindings, since a bundle's call data runs to tens of kilobytes and ethers' serializer and JavaScript keccak
 * spend ~30 ms on it. Returns the signed bytes and the transaction hash. Tests compare it with ethers.
 */
export async function signRelayerTransaction(
  signer: KeySigner,
  fields: RelayerTransactionFields,
  chain: string,
): Promise<{ rawTx: string; txHash: string }> {
  const items = payload(fields);
  const digest = keccak256Bytes(Buffer.concat([TYPE_2, rlpList(items)]));
  const signature = hexToBytes(await signer.sign(digest, { purpose: "relayerTransaction", chain }));
  const yParity = BigInt(signature[64]! - 27);
  const r = BigInt(`0x${signature.subarray(0, 32).toString("hex")}`);
  const s = BigInt(`0x${signature.subarray(32, 64).toString("hex")}`);
  const raw = Buffer.concat([
    TYPE_2,
    rlpList([...items, rlpBytes(uintBytes(yParity)), rlpBytes(uintBytes(r)), rlpBytes(uintBytes(s))]),
  ]);
  return { rawTx: `0x${raw.toString("hex")}`, txHash: `0x${keccak256Bytes(raw).toString("hex")}` };
}

/** The fields of a signed transaction to re-sign with other fees. */
export function relayerFieldsOf(
  rawTx: string,
): Omit<RelayerTransactionFields, "maxFeePerGas" | "maxPriorityFeePerGas"> {
  const tx = Transaction.from(rawTx);
  return { chainId: tx.chainId, nonce: tx.nonce, to: tx.to!, data: tx.data, value: tx.value, gasLimit: tx.gasLimit };
}
