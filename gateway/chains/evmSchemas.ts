import { getAddress, isAddress } from "ethers";
import { z } from "zod";
import { chainByName } from "./registry";

/** An EVM address, any case on input, EIP-55 checksummed on output. */
export const Address = z
  .string()
  .refine((v) => /^0x[0-9a-fA-F]{40}$/.test(v) && isAddress(v), "an EVM address: 0x and 40 hex digits")
  .transform((v) => getAddress(v.toLowerCase()));

/** 0x-prefixed hex of any even length. */
export const Hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, "0x-prefixed hex bytes");

/** A 32-byte 0x-prefixed hex value. */
export const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits");

/** An ERC-3770 chain short name known to the registry. */
export const ChainName = z.string().refine((v) => chainByName(v) !== undefined, "a known chain short name");

/** A secp256k1 private key: 0x and 64 hex digits. */
export const PrivateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a private key: 0x and 64 hex digits");
