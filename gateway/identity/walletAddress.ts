import { AbiCoder, concat, getAddress, getBytes, getCreateAddress, keccak256, toUtf8Bytes } from "ethers";
import { keccak256Bytes } from "./keccak";
import { type UserId, formatUserId } from "./userId";
import { ERC1967_PROXY_CREATION_CODE } from "./walletProxyCode";

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

/**
 * keccak256 of a wallet's creation code: ERC1967Proxy's, with its constructor arguments `(implementation, "")`
 * (the first implementation, no setup call), as ProxyAccountFactory deploys it.
 */
export const proxyInitCodeHash = (implementation: string): string =>
  keccak256(
    concat([
      ERC1967_PROXY_CREATION_CODE,
      AbiCoder.defaultAbiCoder().encode(["address", "bytes"], [implementation, "0x"]),
    ]),
  );

// The hot path works on bytes with a native keccak and a reusable CREATE2 preimage: ethers' hex-string
// helpers cost more than the hashing itself. The golden vectors pin the result.

/** EIP-1014 preimage `0xff ‖ factory ‖ salt ‖ initCodeHash` of each factory; the salt is written per call. */
const create2Preimages = new Map<string, Buffer>();
const SALT_OFFSET = 21;
const HEX_DIGITS = "0123456789abcdef";

function create2Preimage(factory: string): Buffer {
  let preimage = create2Preimages.get(factory);
  if (preimage === undefined) {
    preimage = Buffer.alloc(85);
    preimage[0] = 0xff;
    // getAddress: the same validation (and error) as ethers' getCreate2Address.
    preimage.set(getBytes(getAddress(factory)), 1);
    preimage.set(getBytes(proxyInitCodeHash(factoryImplementation(factory))), SALT_OFFSET + 32);
    create2Preimages.set(factory, preimage);
  }
  return preimage;
}

/** EIP-55 mixed-case spelling of the address in `hash[12..32]`. */
function checksumAddress(hash: Buffer): string {
  const lower = hash.toString("hex", 12, 32);
  const checksum = keccak256Bytes(Buffer.from(lower, "latin1"));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? checksum[i >> 1]! >> 4 : checksum[i >> 1]! & 0x0f;
    const digit = lower[i]!;
    // Letters a-f whose checksum nibble is 8 or more are upper-cased; digits never are.
    out += nibble >= 8 && HEX_DIGITS.indexOf(digit) > 9 ? digit.toUpperCase() : digit;
  }
  return out;
}

/**
 * The wallet address of `userId` for the account type whose factory is `factory`: a pure function of
 * the factory address, the account type and the canonical user id (no key, no chain id, no RPC).
 */
export function deriveWalletAddress(factory: string, type: AccountType, userId: UserId): string {
  const preimage = create2Preimage(factory);
  const salt = keccak256Bytes(Buffer.from(`idwallet:${type}:${SALT_VERSION}:${formatUserId(userId)}`, "utf8"));
  salt.copy(preimage, SALT_OFFSET);
  return checksumAddress(keccak256Bytes(preimage));
}
