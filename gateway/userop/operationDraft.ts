import type { JsonRpcProvider } from "ethers";
import type { Fees } from "../chains/fees";
import type { L1DataFee } from "../chains/l1DataFee";
import type { KeySigner } from "../custody/keySigner";
import type { AccountType } from "../identity/walletAddress";
import type { WalletTxRecord } from "../transactions/txRecord";
import { type PackedUserOperation, userOperationHash } from "./packedUserOperation";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "./sponsorship";
import { personalDigest } from "./words";
import type { SigningScheme } from "./walletSchemes";

export type { Fees } from "../chains/fees";

/**
 * The price an operation with `fees` is charged while the base fee holds: currentFees (chains/fees.ts) sets the max fee
 * to twice the base fee plus the tip, so base fee + tip is (max fee + tip) / 2 (EIP-1559: the effective price is
 * min(max fee, base fee + tip); the EntryPoint charges operations at it, ERC-4337 v0.7 `getUserOpGasPrice`).
 */
export const expectedGasPrice = (fees: Fees): bigint => (fees.maxFeePerGas + fees.maxPriorityFeePerGas) / 2n;

/** What building operations for one chain needs. */
export interface OpBuilderDeps {
  readonly provider: JsonRpcProvider;
  /** The chain's short name, as the signing log records it. */
  readonly chain: string;
  readonly chainId: bigint;
  readonly entryPoint: string;
  readonly factories: Readonly<Record<AccountType, string>>;
  readonly paymaster: string;
  /**
   * The CustodyPaymaster (wallet code 2.1 and later: it authorizes custodial operations under one root signature per
   * bundle); unset where it is not deployed, and then every wallet is built the 2.0.0 way.
   */
  readonly custodyPaymaster?: string;
  /** The KernelAccountCreator: the initCode factory of new kernel wallets, which start on its current code. */
  readonly walletCreator?: string;
  /** The owner account's hot key: signs every wallet's operations (or, under custodyRoot, each bundle's root). */
  readonly walletSigner: KeySigner;
  /** A SponsorPaymaster signer: approves gas sponsorship. */
  readonly sponsorSigner: KeySigner;
  /** How long a sponsorship stays valid. */
  readonly sponsorshipTtlSeconds: number;
  /** The most call gas the paymaster sponsors for one operation; more is refused (CALL_GAS_TOO_HIGH). */
  readonly maxCallGas: bigint;
  /** The most preVerificationGas the paymaster sponsors for one operation (it grows with the call data). */
  readonly maxPreVerificationGas: bigint;
  /** The chain's L1 data fee (an OP-stack chain: registry `l1DataFee`), added to preVerificationGas; else none. */
  readonly l1DataFee?: L1DataFee;
  readonly clock: () => Date;
}

/** One request's operation before its gas is measured. */
export interface Draft {
  readonly tx: WalletTxRecord;
  readonly base: Pick<PackedUserOperation, "sender" | "nonce" | "initCode" | "callData">;
  /** Its preVerificationGas on L2 (the call data's gas), without the L1 data fee the build adds. */
  readonly preVerificationGas: bigint;
  readonly validUntil: number;
  /** How its operation is authorized (the wallet's code). */
  readonly scheme: SigningScheme;
  /** custodyRoot: the most proof entries its operation may carry (its build's operations fix the tree's depth). */
  readonly proofDepth: number;
}

/** The paymaster terms of a draft (its scheme's paymaster): no postOp, valid until the draft's validUntil. */
export const terms = (d: Draft, paymasterVerification: bigint, deps: OpBuilderDeps): SponsorshipTerms => ({
  paymaster: d.scheme === "custodyRoot" ? deps.custodyPaymaster! : deps.paymaster,
  verificationGasLimit: paymasterVerification,
  postOpGasLimit: 0n,
  validUntil: d.validUntil,
  validAfter: 0,
});

/**
 * Attaches the sponsorship and the wallet signature: both EIP-191 signatures by the operator's custody keys, each
 * logged with the request's app and user id.
 */
export async function signOperation(
  op: PackedUserOperation,
  sponsorship: SponsorshipTerms,
  tx: Pick<WalletTxRecord, "appId" | "userId">,
  deps: OpBuilderDeps,
): Promise<{ userOp: PackedUserOperation; userOpHash: string }> {
  const context = { appId: tx.appId, userId: tx.userId, chain: deps.chain };
  const unsponsored = { ...op, paymasterAndData: encodePaymasterAndData(sponsorship) };
  const sponsorSignature = await deps.sponsorSigner.sign(
    personalDigest(sponsorshipHash(unsponsored, sponsorship, deps.chainId)),
    { purpose: "sponsorship", ...context },
  );
  const sponsored = { ...op, paymasterAndData: encodePaymasterAndData(sponsorship, sponsorSignature) };
  const userOpHash = userOperationHash(sponsored, deps.entryPoint, deps.chainId);
  // The wallet's owner is the OwnerAccount, which checks its signer's raw signature over the EIP-191 digest.
  const signature = await deps.walletSigner.sign(personalDigest(userOpHash), { purpose: "userOperation", ...context });
  return { userOp: { ...sponsored, signature }, userOpHash };
}
