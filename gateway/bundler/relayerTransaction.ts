import { Signature, Transaction, type TransactionLike } from "ethers";
import type { DigestSigner } from "../crypto/digestSigner";
import { keccak256Bytes } from "../identity/keccak";
import { hexToBytes } from "../userop/words";

/**
 * Signs an EIP-1559 transaction of the relayer: ethers serializes it, the native keccak and secp256k1 bindings
 * hash and sign (a bundle's call data runs to tens of kilobytes, which ethers' JavaScript keccak hashes slowly).
 * Returns the signed bytes and the transaction hash.
 */
export function signRelayerTransaction(
  signer: DigestSigner,
  fields: TransactionLike,
): { rawTx: string; txHash: string } {
  const tx = Transaction.from({ ...fields, type: 2 });
  const digest = keccak256Bytes(hexToBytes(tx.unsignedSerialized));
  tx.signature = Signature.from(signer.sign(digest));
  const rawTx = tx.serialized;
  return { rawTx, txHash: `0x${keccak256Bytes(hexToBytes(rawTx)).toString("hex")}` };
}
