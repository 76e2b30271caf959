/**
 * Custody signatures of a measured scenario, counted from the service's signature audit log and checked against the
 * bundles on chain: how many the operator's custody keys (the wallet key and the sponsorship key) made per bundle and
 * per operation, the simulations' included, and for wallet code 2.1 that every bundle carries one root signature whose
 * audit row covers exactly that bundle's operations (issue 36: one custody signature per bundle, was four per
 * operation).
 */
import type { SignaturePurpose } from "../../gateway/custody/audit/signatureAudit";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { hexLength, sliceHex } from "../../gateway/userop/hexData";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { type SponsorshipTerms, sponsorshipHash } from "../../gateway/userop/sponsorship";
import { UserOpsFailure } from "./userOpsLoad";

/** The purposes a custody key of the operator signs for an operation: 2.0.0's two, or 2.1's one root per bundle. */
export const CUSTODY_PURPOSES: readonly SignaturePurpose[] = ["userOperation", "sponsorship", "custodyRoot"];

/** What the audit log and the chain say about one scenario's custody signatures. */
export interface CustodyCount {
  /** Audit rows the scenario added, by purpose (relayerTransaction included: the relayer key's, not custody's). */
  readonly byPurpose: Readonly<Partial<Record<SignaturePurpose, number>>>;
  /** Custody signatures: rows of CUSTODY_PURPOSES. */
  readonly custody: number;
  /** custodyRoot rows whose signature some bundle on chain carries, and the operations those bundles hold. */
  readonly rootsOnChain: number;
  readonly opsUnderRoots: number;
}

/** paymasterAndData offsets (ERC-4337 v0.7 and the CustodyPaymaster's layout): terms, then the 65-byte signature. */
const VALID_UNTIL = 52;
const VALID_AFTER = 58;
const SIGNATURE = 64;
const PROOF = SIGNATURE + 65;

/** The highest audit seq of the service's database so far: the scenario's rows come after it. */
export async function auditMark(databasePath: string): Promise<number> {
  const database = await openDatabase(databasePath);
  try {
    return await createRepositories(database.db, () => new Date()).auditLog.highestSeq();
  } finally {
    await database.close();
  }
}

/** What a custody-root check needs to know of the deployment. */
export interface CustodyContext {
  readonly custodyPaymaster: string;
  readonly chainId: bigint;
}

/**
 * Counts the audit rows after `afterSeq` by purpose and checks every root signature the bundles `opsByBundle` carry:
 * one per bundle, found in a custodyRoot row that covers exactly that bundle's operations (their getHash). A bundle
 * carrying two roots, or a root no row or the wrong row accounts for, throws: the chain would not match the log.
 */
export async function countCustody(
  databasePath: string,
  afterSeq: number,
  opsByBundle: readonly (readonly PackedUserOperation[])[],
  context: CustodyContext,
): Promise<CustodyCount> {
  const byPurpose: Partial<Record<SignaturePurpose, number>> = {};
  const coversBySignature = new Map<string, readonly string[]>();
  const database = await openDatabase(databasePath);
  try {
    for await (const row of createRepositories(database.db, () => new Date()).auditLog.rows({ afterSeq })) {
      byPurpose[row.purpose] = (byPurpose[row.purpose] ?? 0) + 1;
      if (row.purpose === "custodyRoot" && row.covers) coversBySignature.set(row.signature, row.covers);
    }
  } finally {
    await database.close();
  }
  let rootsOnChain = 0;
  let opsUnderRoots = 0;
  const paymaster = context.custodyPaymaster.toLowerCase();
  for (const [index, ops] of opsByBundle.entries()) {
    const custodial = ops.filter(
      (op) => hexLength(op.paymasterAndData) >= 20 && sliceHex(op.paymasterAndData, 0, 20).toLowerCase() === paymaster,
    );
    if (custodial.length === 0) continue;
    const signatures = new Set(custodial.map((op) => sliceHex(op.paymasterAndData, SIGNATURE, PROOF).toLowerCase()));
    if (signatures.size !== 1) throw new UserOpsFailure(`bundle ${index} carries ${signatures.size} custody roots`);
    const [signature] = signatures;
    const covers = coversBySignature.get(signature!);
    if (!covers) throw new UserOpsFailure(`bundle ${index}: its root signature has no custodyRoot audit row`);
    const hashes = new Set(custodial.map((op) => sponsorshipHash(op, termsOf(op), context.chainId).toLowerCase()));
    if (covers.length !== custodial.length || !covers.every((hash) => hashes.has(hash))) {
      throw new UserOpsFailure(
        `bundle ${index}: its root's audit row covers ${covers.length} hashes, not its ${custodial.length} operations`,
      );
    }
    rootsOnChain += 1;
    opsUnderRoots += custodial.length;
  }
  const custody = CUSTODY_PURPOSES.reduce((sum, purpose) => sum + (byPurpose[purpose] ?? 0), 0);
  return { byPurpose, custody, rootsOnChain, opsUnderRoots };
}

/** The terms of a CustodyPaymaster paymasterAndData (the fields its getHash reads). */
function termsOf(op: PackedUserOperation): SponsorshipTerms {
  if (hexLength(op.paymasterAndData) < PROOF) throw new UserOpsFailure(`${op.sender}: paymasterAndData too short`);
  return {
    paymaster: sliceHex(op.paymasterAndData, 0, 20),
    verificationGasLimit: BigInt(sliceHex(op.paymasterAndData, 20, 36)),
    postOpGasLimit: BigInt(sliceHex(op.paymasterAndData, 36, VALID_UNTIL)),
    validUntil: Number(BigInt(sliceHex(op.paymasterAndData, VALID_UNTIL, VALID_AFTER))),
    validAfter: Number(BigInt(sliceHex(op.paymasterAndData, VALID_AFTER, SIGNATURE))),
  };
}
