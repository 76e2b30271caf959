import { getAddress, recoverAddress } from "ethers";
import { sponsorshipEnd } from "./sponsorship";
import { personalDigest } from "./words";
import { type TxRecord, type WalletTxRecord, isWalletRecord } from "../transactions/txRecord";

/**
 * Whether `tx`'s last build is an operation signed by `signer` that may still run: signed by it (the owner account
 * checks its signer's raw signature over the EIP-191 digest of the userOpHash), and its sponsorship not over at `now`.
 */
function mayRunSignedBy(tx: WalletTxRecord, signer: string, now: Date): boolean {
  if (!tx.userOp || !tx.userOpHash) return false;
  let recovered: string;
  try {
    recovered = recoverAddress(personalDigest(tx.userOpHash), tx.userOp.signature);
  } catch {
    return false;
  }
  if (recovered !== getAddress(signer)) return false;
  const end = sponsorshipEnd(tx.userOp.paymasterAndData);
  return end === undefined || end === 0 || end * 1000 >= now.getTime();
}

/**
 * The requests a wallet signer's retirement would strand: not final, their last build signed by `signer` and still
 * able to run. Removing the signer first would make those builds fail validation; once the service signs with the
 * new key, they are built again (or included) and the list empties.
 */
export const strandedBy = (built: readonly TxRecord[], signer: string, now: Date): WalletTxRecord[] =>
  built.filter(isWalletRecord).filter((tx) => mayRunSignedBy(tx, signer, now));
