import { getAddress, recoverAddress } from "ethers";
import { sponsorshipEnd } from "./sponsorship";
import { personalDigest } from "./words";
import { custodyRootSigner } from "./custodyRoot";
import { type TxRecord, type WalletTxRecord, isWalletRecord } from "../transactions/txRecord";

/** The chain the builds are for: a custody root's digest names it and its EntryPoint. */
export interface RotationChain {
  readonly chainId: bigint;
  readonly entryPoint: string;
}

/**
 * Whether `tx`'s last build is an operation signed by `signer` that may still run: signed by it (code 2.0.0: the owner
 * account checks its signer's raw signature over the EIP-191 digest of the userOpHash; code 2.1: the CustodyPaymaster
 * checks the root signature its proof leads to), and its sponsorship not over at `now`.
 */
function mayRunSignedBy(tx: WalletTxRecord, signer: string, now: Date, chain: RotationChain): boolean {
  if (!tx.userOp || !tx.userOpHash) return false;
  let recovered: string | undefined;
  if (tx.userOp.signature === "0x") {
    recovered = custodyRootSigner(tx.userOp, chain);
  } else {
    try {
      recovered = recoverAddress(personalDigest(tx.userOpHash), tx.userOp.signature);
    } catch {
      return false;
    }
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
export const strandedBy = (
  built: readonly TxRecord[],
  signer: string,
  now: Date,
  chain: RotationChain,
): WalletTxRecord[] => built.filter(isWalletRecord).filter((tx) => mayRunSignedBy(tx, signer, now, chain));
