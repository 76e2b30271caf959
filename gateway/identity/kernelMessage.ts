import { TypedDataEncoder } from "ethers";

/** EIP-712 domain of a KernelAccount's EIP-1271 signatures: no chain id, see KernelAccount.sol. */
export const kernelMessageDomain = (account: string) => ({
  name: "idwallet Kernel",
  version: "1",
  verifyingContract: account,
});

/** EIP-712 types of the message a KernelAccount's owner signs to vouch for a hash. */
export const KERNEL_MESSAGE_TYPES = { KernelMessage: [{ name: "hash", type: "bytes32" }] };

/** KernelAccount.replaySafeHash computed offline: the digest the owner signs for EIP-1271. */
export const kernelReplaySafeHash = (account: string, hash: string): string =>
  TypedDataEncoder.hash(kernelMessageDomain(account), KERNEL_MESSAGE_TYPES, { hash });
