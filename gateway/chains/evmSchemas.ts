import { getAddress, isAddress } from "ethers";
import { z } from "zod";
import { chainByName } from "./registry";

const ADDRESS_DIGITS = /^0x[0-9a-fA-F]{40}$/;

/**
 * An EVM address, EIP-55 checksummed on output. On input: all lower case, all upper case, or mixed case with a right
 * EIP-55 checksum; a mixed-case address whose checksum is wrong is refused saying so, with no checksummed spelling
 * suggested: its digits may be mistyped, which is what EIP-55 catches.
 */
export const Address = z
  .string()
  .superRefine((value, context) => {
    if (!ADDRESS_DIGITS.test(value))
      context.addIssue({ code: "custom", message: "an EVM address: 0x and 40 hex digits" });
    else if (!isAddress(value))
      context.addIssue({
        code: "custom",
        message:
          "the EIP-55 checksum of this mixed-case address is wrong: check its digits, then send it checksummed, " +
          "or in all lowercase (which carries no checksum)",
      });
  })
  .transform((v) => getAddress(v.toLowerCase()));

/** 0x-prefixed hex of any even length. */
export const Hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, "0x-prefixed hex bytes");

/** A 32-byte 0x-prefixed hex value. */
export const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits");

/** An ERC-3770 chain short name known to the registry. */
export const ChainName = z.string().refine((v) => chainByName(v) !== undefined, "a known chain short name");

/** A secp256k1 private key: 0x and 64 hex digits. */
export const PrivateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a private key: 0x and 64 hex digits");
