import { concat, getCreate2Address, getCreateAddress, keccak256, toUtf8Bytes } from "ethers";
import { type UserId, formatUserId } from "./userId";

/** Account types a user id has a wallet of; `kernel` is the default, `base` is deprecated. */
export const ACCOUNT_TYPES = ["kernel", "base"] as const;
/** One of ACCOUNT_TYPES. */
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Version of the salt formula below. Frozen: a new formula is a new version, never an edit. */
export const SALT_VERSION = "v1";

/**
 * CREATE2 salt of a user id's account: keccak256 of the UTF-8 string
 * `idwallet:<account type>:v1:<canonical user id>`.
 */
export const walletSalt = (type: AccountType, userId: UserId): string =>
  keccak256(toUtf8Bytes(`idwallet:${type}:${SALT_VERSION}:${formatUserId(userId)}`));

/** The account implementation a factory creates in its constructor: its first CREATE (EIP-161 nonce 1). */
export const factoryImplementation = (factory: string): string => getCreateAddress({ from: factory, nonce: 1 });

// EIP-1167 minimal proxy creation code around the implementation address, as OpenZeppelin Clones builds it.
const CLONE_PREFIX = "0x3d602d80600a3d3981f3363d3d373d3d3d363d73";
const CLONE_SUFFIX = "0x5af43d82803e903d91602b57fd5bf3";

/** keccak256 of the EIP-1167 creation code of a clone of `implementation`. */
export const cloneInitCodeHash = (implementation: string): string =>
  keccak256(concat([CLONE_PREFIX, implementation, CLONE_SUFFIX]));

const initCodeHashByFactory = new Map<string, string>();

/**
 * The wallet address of `userId` for the account type whose factory is `factory`: a pure function of
 * the factory address, the account type and the canonical user id (no key, no chain id, no RPC).
 */
export function deriveWalletAddress(factory: string, type: AccountType, userId: UserId): string {
  let initCodeHash = initCodeHashByFactory.get(factory);
  if (initCodeHash === undefined) {
    initCodeHash = cloneInitCodeHash(factoryImplementation(factory));
    initCodeHashByFactory.set(factory, initCodeHash);
  }
  return getCreate2Address(factory, walletSalt(type, userId), initCodeHash);
}
