import { getBytes } from "ethers";
import { kernelReplaySafeHash } from "../identity/kernelMessage";
import type { KeySigner } from "./keySigner";

/**
 * Who an EIP-1271 answer is for: the app that asked, the canonical user id, the chain it names (if any), and the app's
 * bearer token as the request presented it. A signer in this process logs `appId` (this process verified the token);
 * the primary of a cluster logs the app of the token, which it verifies itself, whatever `appId` a worker names.
 */
export interface WalletMessageContext {
  readonly appId: string;
  readonly userId: string;
  readonly chain?: string;
  readonly appToken?: string;
}

/**
 * The wallet signer as /v1/kernel/sign uses it: it signs one thing only, a Kernel wallet's replay-safe hash of a
 * message hash (EIP-1271), never a digest chosen by its caller, so a process holding it cannot obtain a signature
 * over a UserOperation. In a cluster, HTTP workers hold a remote one that asks the primary, which holds the key.
 */
export interface WalletMessageSigner {
  /** The wallet signer's address (the owner account's signer). */
  readonly address: string;
  /** The owner key's signature of `account`'s replay-safe hash of `hash`. */
  signWalletMessage(account: string, hash: string, context: WalletMessageContext): Promise<string>;
}

/** The signer for a key held in this process: each answer logged as an `eip1271` signature. */
export function localWalletMessageSigner(key: KeySigner): WalletMessageSigner {
  return {
    address: key.address,
    signWalletMessage: (account, hash, { appId, userId, chain }) =>
      key.sign(getBytes(kernelReplaySafeHash(account, hash)), {
        purpose: "eip1271",
        appId,
        userId,
        ...(chain !== undefined && { chain }),
      }),
  };
}
