import { TypedDataEncoder, recoverAddress } from "ethers";
import { keccak256Bytes } from "../identity/keccak";
import { concatHex } from "./hexData";
import type { PackedUserOperation } from "./packedUserOperation";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "./sponsorship";
import { hexToBytes } from "./words";

/**
 * One custody signature for a whole bundle (CustodyPaymaster, wallet code 2.1): each operation is a leaf of a Merkle
 * tree, the operator's key signs the root once as EIP-712 `BundleRoot(bytes32 root,address entryPoint)` in the
 * paymaster's domain, and each operation's paymasterAndData carries that signature and its own proof. Leaves are
 * double-hashed (no inner node passes for a leaf) and pairs hashed in sorted order (OpenZeppelin's MerkleProof).
 */

/** The most proof entries the paymaster accepts (CustodyPaymaster.MAX_PROOF_LENGTH): bundles of up to 1,024. */
export const MAX_PROOF_LENGTH = 10;
/** The most operations one root may cover. */
export const MAX_ROOT_LEAVES = 2 ** MAX_PROOF_LENGTH;

const BUNDLE_ROOT_TYPES = {
  BundleRoot: [
    { name: "root", type: "bytes32" },
    { name: "entryPoint", type: "address" },
  ],
};

/** The leaf of an operation whose CustodyPaymaster.getHash is `termsHash`: keccak256(keccak256(termsHash)). */
export const custodyLeaf = (termsHash: string): Buffer => keccak256Bytes(keccak256Bytes(hexToBytes(termsHash)));

/** keccak256 of two nodes in ascending order (OpenZeppelin Hashes.commutativeKeccak256). */
const hashPair = (a: Buffer, b: Buffer): Buffer =>
  keccak256Bytes(Buffer.compare(a, b) <= 0 ? Buffer.concat([a, b]) : Buffer.concat([b, a]));

/** A tree's root and each leaf's proof (siblings from the leaf up), in the order of the leaves. */
export interface CustodyTree {
  readonly root: string;
  readonly proofs: readonly (readonly string[])[];
}

/**
 * The tree over `leaves`: each level pairs nodes left to right; an odd last node goes up unpaired (and adds nothing to
 * the proofs beneath it). One leaf is its own root, with an empty proof.
 */
export function custodyTree(leaves: readonly Buffer[]): CustodyTree {
  if (leaves.length === 0) throw new RangeError("a custody tree needs at least one leaf");
  if (leaves.length > MAX_ROOT_LEAVES) throw new RangeError(`a custody tree covers at most ${MAX_ROOT_LEAVES} leaves`);
  const proofs: string[][] = leaves.map(() => []);
  // Which original leaves sit under each node of the current level.
  let level = leaves.map((leaf, i) => ({ node: leaf, under: [i] }));
  while (level.length > 1) {
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      if (!right) {
        next.push(left);
        continue;
      }
      for (const leaf of left.under) proofs[leaf]!.push(`0x${right.node.toString("hex")}`);
      for (const leaf of right.under) proofs[leaf]!.push(`0x${left.node.toString("hex")}`);
      next.push({ node: hashPair(left.node, right.node), under: [...left.under, ...right.under] });
    }
    level = next;
  }
  return { root: `0x${level[0]!.node.toString("hex")}`, proofs };
}

/** The root `proof` leads to from `leaf` (what the paymaster computes). */
export function rootOfProof(leaf: Buffer, proof: readonly string[]): string {
  const root = proof.reduce((node, sibling) => hashPair(node, hexToBytes(sibling)), leaf);
  return `0x${root.toString("hex")}`;
}

/** The EIP-712 digest the custody key signs for `root` (CustodyPaymaster.rootDigest). */
export function custodyRootDigest(root: string, paymaster: string, entryPoint: string, chainId: bigint): string {
  const domain = { name: "idwallet custody", version: "1", chainId, verifyingContract: paymaster };
  return TypedDataEncoder.hash(domain, BUNDLE_ROOT_TYPES, { root, entryPoint });
}

/** paymasterAndData for the CustodyPaymaster: the terms, the root's signature, the operation's proof. */
export const encodeCustodyPaymasterAndData = (
  terms: SponsorshipTerms,
  rootSignature: string,
  proof: readonly string[],
): string => concatHex([encodePaymasterAndData(terms, rootSignature), ...proof]);

/** An operation ready for its root: its terms and their hash (CustodyPaymaster.getHash). */
export interface CustodyLeaf {
  readonly op: PackedUserOperation;
  readonly terms: SponsorshipTerms;
}

/**
 * Signs one root over `leaves` with `sign` (one custody signature; it is given the digest and the hashes the root
 * covers, each operation's CustodyPaymaster.getHash in leaf order, for the audit log) and returns each operation with
 * its paymasterAndData complete and an empty `signature` (a custodial 2.1 wallet accepts nothing else), plus the root.
 */
export async function signCustodyRoot(
  leaves: readonly CustodyLeaf[],
  chain: { readonly chainId: bigint; readonly entryPoint: string },
  sign: (digest: string, covers: readonly string[]) => Promise<string>,
): Promise<{ readonly root: string; readonly ops: PackedUserOperation[] }> {
  const paymasters = new Set(leaves.map((l) => l.terms.paymaster.toLowerCase()));
  if (paymasters.size !== 1) throw new RangeError("one custody root covers operations of one paymaster");
  const covers = leaves.map(({ op, terms }) =>
    sponsorshipHash({ ...op, paymasterAndData: encodePaymasterAndData(terms) }, terms, chain.chainId),
  );
  const tree = custodyTree(covers.map(custodyLeaf));
  const digest = custodyRootDigest(tree.root, leaves[0]!.terms.paymaster, chain.entryPoint, chain.chainId);
  const signature = await sign(digest, covers);
  const ops = leaves.map(({ op, terms }, i) => ({
    ...op,
    paymasterAndData: encodeCustodyPaymasterAndData(terms, signature, tree.proofs[i]!),
    signature: "0x",
  }));
  return { root: tree.root, ops };
}

/**
 * The key whose root signature authorizes `op` under the CustodyPaymaster (the inverse of signCustodyRoot), or undefined
 * when its paymasterAndData is not the CustodyPaymaster's layout or names no signer.
 */
export function custodyRootSigner(
  op: PackedUserOperation,
  chain: { chainId: bigint; entryPoint: string },
): string | undefined {
  const data = op.paymasterAndData;
  const bytes = (data.length - 2) / 2;
  const fixed = 20 + 32 + 12 + 65;
  if (bytes < fixed || (bytes - fixed) % 32 !== 0 || (bytes - fixed) / 32 > MAX_PROOF_LENGTH) return undefined;
  const at = (from: number, to: number) => `0x${data.slice(2 + from * 2, 2 + to * 2)}`;
  const terms: SponsorshipTerms = {
    paymaster: at(0, 20),
    verificationGasLimit: BigInt(at(20, 36)),
    postOpGasLimit: BigInt(at(36, 52)),
    validUntil: Number(BigInt(at(52, 58))),
    validAfter: Number(BigInt(at(58, 64))),
  };
  const proof = Array.from({ length: (bytes - fixed) / 32 }, (_, i) => at(fixed + 32 * i, fixed + 32 * (i + 1)));
  const termsHash = sponsorshipHash({ ...op, paymasterAndData: encodePaymasterAndData(terms) }, terms, chain.chainId);
  const root = rootOfProof(custodyLeaf(termsHash), proof);
  try {
    return recoverAddress(custodyRootDigest(root, terms.paymaster, chain.entryPoint, chain.chainId), at(64, fixed));
  } catch {
    return undefined;
  }
}
