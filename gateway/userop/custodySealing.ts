import { randomBytes } from "node:crypto";
import { SigningKey } from "ethers";
import type { BuiltUserOp } from "../transactions/builtOp";
import type { WalletTxRecord } from "../transactions/txRecord";
import { MAX_PROOF_LENGTH, signCustodyRoot } from "./custodyRoot";
import { concatHex } from "./hexData";
import type { OpBuilderDeps } from "./operationDraft";
import { type PackedUserOperation, userOperationHash } from "./packedUserOperation";
import { type SponsorshipTerms, encodePaymasterAndData } from "./sponsorship";
import { hexToBytes } from "./words";

/**
 * A custodial operation on code 2.1 built and measured, its fields final, waiting for its bundle's root signature. Its
 * `op` carries a placeholder signature and proof of the largest size it may get, so that it is measured (bytes, gas)
 * as it will be sent.
 */
export interface UnsealedUserOp {
  readonly txId: string;
  readonly tx: Pick<WalletTxRecord, "appId" | "userId">;
  readonly op: PackedUserOperation;
  readonly terms: SponsorshipTerms;
}

/** Non-zero filler of a placeholder (calldata costs what real signature bytes and hashes do). */
const FILLER_WORD = `0x${"ff".repeat(32)}`;

/** paymasterAndData with a placeholder root signature and `proofDepth` proof entries: the largest it may become. */
export function placeholderCustodyData(terms: SponsorshipTerms, proofDepth: number): string {
  if (proofDepth > MAX_PROOF_LENGTH) throw new RangeError(`a proof has at most ${MAX_PROOF_LENGTH} entries`);
  return concatHex([
    encodePaymasterAndData(terms, `0x${"ff".repeat(65)}`),
    ...Array.from({ length: proofDepth }, () => FILLER_WORD),
  ]);
}

/**
 * A signature by a key of no one's, made once when the process starts (the key is never kept), over a digest of no
 * one's: every simulated custodial operation carries it, so that its paymaster validation runs the same code and gas as
 * the real one (ecrecover of some address, the signer look-up) and fails, without a custody signature and without a
 * signature per simulation. Nobody who sees a simulation can have that operation included (AA34).
 */
const SIMULATION_SIGNATURE = new SigningKey(randomBytes(32)).sign(randomBytes(32)).serialized;
/** Proof entries of the simulations: random once, as real sibling hashes would be. */
const SIMULATION_PROOF = Array.from({ length: MAX_PROOF_LENGTH }, () => `0x${randomBytes(32).toString("hex")}`);

/** paymasterAndData for simulating a custodial operation: the terms, the throwaway signature, a proof's length. */
export function simulationCustodyData(terms: SponsorshipTerms, proofDepth: number): string {
  if (proofDepth > MAX_PROOF_LENGTH) throw new RangeError(`a proof has at most ${MAX_PROOF_LENGTH} entries`);
  return concatHex([encodePaymasterAndData(terms, SIMULATION_SIGNATURE), ...SIMULATION_PROOF.slice(0, proofDepth)]);
}

/** The proof depth a tree over `count` operations may need: ceil(log2(count)). */
export const proofDepthFor = (count: number): number => (count <= 1 ? 0 : Math.ceil(Math.log2(count)));

/**
 * Signs one root over `unsealed` (one custody signature for all of them, recorded in the audit log as one row listing
 * the hashes it covers) and returns them built: paymasterAndData with the signature and each operation's proof, an
 * empty `signature`, the userOpHash. The app and user id are recorded when every operation shares them.
 */
export async function sealCustodyOps(unsealed: readonly UnsealedUserOp[], deps: OpBuilderDeps): Promise<BuiltUserOp[]> {
  if (unsealed.length === 0) return [];
  const shared = <K extends "appId" | "userId">(key: K): { [P in K]?: string } => {
    const values = new Set(unsealed.map((u) => u.tx[key]));
    return values.size === 1 ? ({ [key]: unsealed[0]!.tx[key] } as { [P in K]?: string }) : {};
  };
  const { ops } = await signCustodyRoot(
    unsealed.map(({ op, terms }) => ({ op, terms })),
    { chainId: deps.chainId, entryPoint: deps.entryPoint },
    (digest, covers) =>
      deps.walletSigner.sign(hexToBytes(digest), {
        purpose: "custodyRoot",
        chain: deps.chain,
        ...shared("appId"),
        ...shared("userId"),
        covers,
      }),
  );
  return ops.map((userOp, i) => ({
    txId: unsealed[i]!.txId,
    userOp,
    userOpHash: userOperationHash(userOp, deps.entryPoint, deps.chainId),
  }));
}
