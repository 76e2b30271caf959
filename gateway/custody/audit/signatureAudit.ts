import { getAddress, isAddress } from "ethers";
import { z } from "zod";

/** What a custody key signed: each signing path of the service names itself in the audit log. */
export const SignaturePurpose = z.enum([
  "userOperation",
  "sponsorship",
  "eip1271",
  "safeTransaction",
  "relayerTransaction",
  "custodyRoot",
]);
export type SignaturePurpose = z.infer<typeof SignaturePurpose>;

/** EIP-55 spellings found so far (undefined: not an address), bounded: the log sees the few addresses of its keys. */
const checksums = new Map<string, string | undefined>();

/** `address` in EIP-55, or undefined if it is not one; each spelling is hashed once (keccak dominates a row's cost). */
function checksummed(address: string): string | undefined {
  if (checksums.has(address)) return checksums.get(address);
  const found = isAddress(address) ? getAddress(address) : undefined;
  if (checksums.size >= 1024) checksums.clear();
  checksums.set(address, found);
  return found;
}

/** The one spelling of an address the log stores: EIP-55, so a row's text (and hash) has one form only. */
const ChecksummedAddress = z.string().refine((v) => checksummed(v) === v, "an EIP-55 address");
/** Lower-case 0x hex of exactly `bytes` bytes, the one spelling of a digest or signature the log stores. */
const LowerHex = (bytes: number) =>
  z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`), `0x and ${bytes * 2} lower-case hex digits`);

/** One signature a custody key made, as it is logged before it leaves the process. */
export const SignatureAuditEntry = z.object({
  purpose: SignaturePurpose,
  /** The key's address (EIP-55). */
  signer: ChecksummedAddress,
  /** The 32-byte digest signed. */
  digest: LowerHex(32),
  /** The 65-byte r ‖ s ‖ v signature. */
  signature: LowerHex(65),
  /** Whose request it served, where one did. */
  appId: z.string().optional(),
  userId: z.string().optional(),
  chain: z.string().optional(),
  /** A custody root's: the hashes the root covers (each operation's CustodyPaymaster.getHash), in leaf order. */
  covers: z.array(LowerHex(32)).min(1).readonly().optional(),
});
export type SignatureAuditEntry = z.infer<typeof SignatureAuditEntry>;

/** The hash before the first row. */
export const GENESIS_HASH = `0x${"0".repeat(64)}`;

/** A logged entry: its place in the log (`seq` from 1, never reused), when, and its link in the hash chain. */
export const AuditRow = SignatureAuditEntry.extend({
  seq: z.number().int().positive(),
  at: z.iso.datetime(),
  /** `hash` of the row before (GENESIS_HASH for the first). */
  prevHash: LowerHex(32),
  /** auditRowHash(prevHash, this row). */
  hash: LowerHex(32),
});
export type AuditRow = z.infer<typeof AuditRow>;

/**
 * `entry` in the one spelling the log stores (EIP-55 signer, lower-case hex), or a ZodError naming what is wrong:
 * the signer's own output is accepted in any case, the row stored is canonical.
 */
export function canonicalAuditEntry(entry: SignatureAuditEntry): SignatureAuditEntry {
  const { signer, digest, signature } = entry;
  return SignatureAuditEntry.parse({
    ...entry,
    signer: typeof signer === "string" ? (checksummed(signer) ?? signer) : signer,
    digest: typeof digest === "string" ? digest.toLowerCase() : digest,
    signature: typeof signature === "string" ? signature.toLowerCase() : signature,
    ...(entry.covers && { covers: entry.covers.map((hash) => (typeof hash === "string" ? hash.toLowerCase() : hash)) }),
  });
}

/**
 * A stored row that is not a well-formed AuditRow (a purpose no signer uses, a digest that is not 32 bytes, …): no
 * code of the service writes one, so it was written from outside.
 */
export class MalformedAuditRowError extends Error {
  override readonly name = "MalformedAuditRowError";

  constructor(
    readonly seq: number,
    readonly reason: string,
  ) {
    super(`signature audit row ${seq} is malformed: ${reason}`);
  }
}
