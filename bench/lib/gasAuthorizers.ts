/**
 * How the gas bench authorizes each account's operations: the owner's signature alone (the account pays its gas), a
 * paymaster's sponsorship and then the owner's signature (our SponsorPaymaster, or eth-infinitism's VerifyingPaymaster
 * sample deployed from its npm artifact), or, for wallet code 2.1, a custody root over a bundle of a given size
 * (CustodyPaymaster, no wallet signature).
 */
import { type Signer, Contract, ContractFactory, SigningKey, dataLength, getBytes, id, parseEther } from "ethers";
import verifyingPaymasterArtifact from "@account-abstraction/contracts/artifacts/VerifyingPaymaster.json";
import {
  custodyLeaf,
  custodyRootDigest,
  custodyTree,
  encodeCustodyPaymasterAndData,
} from "../../gateway/userop/custodyRoot";
import { concatHex, uintHex } from "../../gateway/userop/hexData";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "../../gateway/userop/sponsorship";
import { signUserOp, sponsorUserOp } from "../../test/helpers/userOps";
import type { Authorize } from "./accounts";

/** Where operations are validated. */
export interface GasChain {
  readonly entryPoint: string;
  readonly chainId: bigint;
}

/** Every paymaster's validation gas limit and approval window: the same terms for each, so their bytes cost alike. */
const PAYMASTER_VERIFICATION_GAS = 100_000n;
/** 2100-01-01: a fixed, non-zero end, as a real approval has (its bytes are not free zeros), and repeatable. */
export const VALID_UNTIL = 4_102_444_800;

/** The terms every paymaster of the bench is given. */
export const paymasterTerms = (paymaster: string): SponsorshipTerms => ({
  paymaster,
  verificationGasLimit: PAYMASTER_VERIFICATION_GAS,
  postOpGasLimit: 0n,
  validUntil: VALID_UNTIL,
  validAfter: 0,
});

/** The owner's EIP-191 signature of the userOpHash, after `sponsor` (if any) has filled paymasterAndData. */
export function ownerSigned(
  owner: Signer,
  chain: GasChain,
  sponsor?: (op: PackedUserOperation) => Promise<PackedUserOperation>,
): Authorize {
  return async (op) => ({
    op: await signUserOp(sponsor ? await sponsor(op) : op, owner, chain.entryPoint, chain.chainId),
  });
}

/** Sponsorship by our SponsorPaymaster at `paymaster`, signed by `sponsorKey`. */
export const sponsorPaymaster =
  (paymaster: string, sponsorKey: Signer, chain: GasChain) =>
  (op: PackedUserOperation): Promise<PackedUserOperation> =>
    sponsorUserOp(op, paymasterTerms(paymaster), sponsorKey, chain.chainId);

/**
 * eth-infinitism's VerifyingPaymaster 0.7.0 (the npm package's artifact) trusting `verifyingSigner`, with `deposit` at
 * the EntryPoint; returns its sponsorship: paymaster(20) | gas limits(32) | abi.encode(validUntil, validAfter)(64) |
 * the signer's EIP-191 signature of its getHash (asked of the contract itself).
 */
export async function verifyingPaymaster(
  deployer: Signer,
  verifyingSigner: Signer,
  chain: GasChain,
  deposit = parseEther("10"),
): Promise<(op: PackedUserOperation) => Promise<PackedUserOperation>> {
  const { abi, bytecode } = verifyingPaymasterArtifact;
  const deployed = await new ContractFactory(abi, bytecode, deployer).deploy(
    chain.entryPoint,
    await verifyingSigner.getAddress(),
  );
  await deployed.waitForDeployment();
  const paymaster = new Contract(await deployed.getAddress(), abi, deployer);
  await (await paymaster.getFunction("deposit")({ value: deposit })).wait();
  const terms = paymasterTerms(await paymaster.getAddress());
  const head = (signature: string) =>
    concatHex([
      encodePaymasterAndData(terms, "0x").slice(0, 2 + 52 * 2),
      uintHex(terms.validUntil, 32),
      uintHex(terms.validAfter, 32),
      signature,
    ]);
  return async (op) => {
    const unsigned = { ...op, paymasterAndData: head("0x") };
    const hash: string = await paymaster.getFunction("getHash")(unsigned, terms.validUntil, terms.validAfter);
    return { ...op, paymasterAndData: head(await verifyingSigner.signMessage(getBytes(hash))) };
  };
}

/**
 * A custody root signed by `custodyKey` over the operation and `bundleSize − 1` other leaves (fixed filler, so runs
 * repeat), the operation first: its paymasterAndData carries the root signature and a proof of ceil(log2(bundleSize))
 * entries, its `signature` is empty, as in a bundle of that size the service seals. The proof's bytes are returned
 * apart: on an L2 they are priced as data.
 */
export function custodyRoot(paymaster: string, custodyKey: SigningKey, chain: GasChain, bundleSize: number): Authorize {
  const terms = paymasterTerms(paymaster);
  const filler = Array.from({ length: bundleSize - 1 }, (_, i) => custodyLeaf(id(`idwallet gas bench leaf ${i}`)));
  return async (op) => {
    const hashed = { ...op, paymasterAndData: encodePaymasterAndData(terms), signature: "0x" };
    const tree = custodyTree([custodyLeaf(sponsorshipHash(hashed, terms, chain.chainId)), ...filler]);
    const digest = custodyRootDigest(tree.root, paymaster, chain.entryPoint, chain.chainId);
    const proof = tree.proofs[0]!;
    const sealed = {
      ...hashed,
      paymasterAndData: encodeCustodyPaymasterAndData(terms, custodyKey.sign(digest).serialized, proof),
    };
    return { op: sealed, ...(proof.length > 0 ? { apartBytes: concatHex([...proof]) } : {}) };
  };
}

/** Intrinsic calldata gas of `data` (16 a non-zero byte, 4 a zero byte) and its length. */
export function calldataCost(data: string): { bytes: number; gas: number } {
  const bytes = getBytes(data);
  const zeros = bytes.filter((b) => b === 0).length;
  return { bytes: dataLength(data), gas: 16 * (bytes.length - zeros) + 4 * zeros };
}
