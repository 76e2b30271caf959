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

// The hot path works on bytes with a native keccak and reusable buffers: ethers' hex-string helpers cost more than
// the hashing itself. The golden vectors pin the result, and a test holds the checksum to ethers' getAddress.

/** EIP-1014 preimage `0xff ‖ factory ‖ salt ‖ initCodeHash` of each factory; the salt is written per call. */
const create2Preimages = new Map<string, Buffer>();
const SALT_OFFSET = 21;

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

// "0x" and 40 hex digits, rewritten by each checksum; `HEX_DIGITS` is a view of the digits alone, to hash them.
const ADDRESS_TEXT = Buffer.from(`0x${"0".repeat(40)}`, "latin1");
const HEX_DIGITS = ADDRESS_TEXT.subarray(2);
const LOWER_HEX = Buffer.from("0123456789abcdef", "latin1");
const UPPER_CASE_OFFSET = 0x20;

/**
 * EIP-55 mixed-case spelling of the 20-byte address at `bytes[offset..offset + 20]`: the lower-case hex digits,
 * each letter upper-cased where the matching nibble of keccak256(those digits) is 8 or more.
 */
export function checksumAddress(bytes: Uint8Array, offset = 0): string {
  for (let i = 0; i < 20; i++) {
    const byte = bytes[offset + i]!;
    HEX_DIGITS[2 * i] = LOWER_HEX[byte >> 4]!;
    HEX_DIGITS[2 * i + 1] = LOWER_HEX[byte & 0x0f]!;
  }
  const hash = keccak256Bytes(HEX_DIGITS);
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    // Only letters (a-f, above "9") have a case.
    if (nibble >= 8 && HEX_DIGITS[i]! > 0x39) HEX_DIGITS[i] = HEX_DIGITS[i]! - UPPER_CASE_OFFSET;
  }
  return ADDRESS_TEXT.toString("latin1");
}

/**
 * The wallet address of `userId` for the account type whose factory is `factory`: a pure function of
 * the factory address, the account type and the canonical user id (no key, no chain id, no RPC).
 */
export function deriveWalletAddress(factory: string, type: AccountType, userId: UserId): string {
  return walletAddressOf(factory, type, formatUserId(userId));
}

/** deriveWalletAddress from the canonical `provider:username` string, for callers that already hold it. */
export function walletAddressOf(factory: string, type: AccountType, canonicalUserId: string): string {
  const preimage = create2Preimage(factory);
  const salt = keccak256Bytes(Buffer.from(`idwallet:${type}:${SALT_VERSION}:${canonicalUserId}`, "utf8"));
  preimage.set(salt, SALT_OFFSET);
  // EIP-1014: the address is the last 20 bytes of keccak256(preimage).
  return checksumAddress(keccak256Bytes(preimage), 12);
}
