import { type BaseContract, type Signer, type TransactionResponse, getBytes } from "ethers";
import {
  type PackedUserOperation,
  packAccountGasLimits,
  packGasFees,
  userOperationHash,
} from "../../gateway/userop/packedUserOperation";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "../../gateway/userop/sponsorship";

/** Gas and fee settings generous enough for every test operation on the Hardhat chain. */
export const TEST_GAS = {
  verificationGasLimit: 600_000n,
  callGasLimit: 600_000n,
  preVerificationGas: 60_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  maxFeePerGas: 20_000_000_000n,
};

/** Builds an unsigned UserOperation with TEST_GAS unless overridden. */
export function buildUserOp(
  fields: Pick<PackedUserOperation, "sender" | "nonce" | "callData"> & Partial<PackedUserOperation>,
  gas = TEST_GAS,
): PackedUserOperation {
  return {
    initCode: "0x",
    accountGasLimits: packAccountGasLimits(gas.verificationGasLimit, gas.callGasLimit),
    preVerificationGas: gas.preVerificationGas,
    gasFees: packGasFees(gas.maxPriorityFeePerGas, gas.maxFeePerGas),
    paymasterAndData: "0x",
    signature: "0x",
    ...fields,
  };
}

/** Signs the op as its owner does: the userOpHash as an EIP-191 personal message. */
export async function signUserOp(
  op: PackedUserOperation,
  owner: Signer,
  entryPoint: string,
  chainId: bigint,
): Promise<PackedUserOperation> {
  const hash = userOperationHash(op, entryPoint, chainId);
  return { ...op, signature: await owner.signMessage(getBytes(hash)) };
}

/** Attaches a SponsorPaymaster sponsorship signed by `sponsor`. */
export async function sponsorUserOp(
  op: PackedUserOperation,
  terms: SponsorshipTerms,
  sponsor: Signer,
  chainId: bigint,
): Promise<PackedUserOperation> {
  const unsigned = { ...op, paymasterAndData: encodePaymasterAndData(terms) };
  const signature = await sponsor.signMessage(getBytes(sponsorshipHash(unsigned, terms, chainId)));
  return { ...op, paymasterAndData: encodePaymasterAndData(terms, signature) };
}

/** Sends ops to EntryPoint.handleOps with `beneficiary` collecting the fees. */
export function handleOps(
  entryPoint: BaseContract,
  ops: PackedUserOperation[],
  beneficiary: string,
): Promise<TransactionResponse> {
  const handle = entryPoint.getFunction("handleOps");
  return handle(ops, beneficiary, { gasLimit: 10_000_000 });
}
