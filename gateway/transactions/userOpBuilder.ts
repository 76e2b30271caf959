import { type JsonRpcProvider, type SigningKey, concat, getBytes, hashMessage, toBeHex } from "ethers";
import { revertDataOf } from "../chains/revertData";
import { parseUserId } from "../identity/userId";
import { type AccountType, walletSalt } from "../identity/walletAddress";
import type { BuiltOp, TxRecord } from "../storage/transactionsRepository";
import {
  ENTRY_POINT_SIMULATIONS_CODE,
  decodeEntryPointError,
  entryPointInterface,
  opTuple,
  parseValidationData,
  requestNonce,
} from "../userop/entryPoint";
import {
  type PackedUserOperation,
  packAccountGasLimits,
  packGasFees,
  packInitCode,
  userOperationHash,
} from "../userop/packedUserOperation";
import { preVerificationGas } from "../userop/preVerificationGas";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "../userop/sponsorship";
import { createAccountCallData, walletCallData } from "./callData";
import { type OperationFailure, failureFromReason } from "./failureCodes";

/** Fees of an operation (and of the bundle carrying it). */
export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** What building operations for one chain needs. */
export interface OpBuilderDeps {
  readonly provider: JsonRpcProvider;
  readonly chainId: bigint;
  readonly entryPoint: string;
  readonly factories: Readonly<Record<AccountType, string>>;
  readonly paymaster: string;
  /** The owner account's hot key: signs every wallet's operations. */
  readonly walletSigner: SigningKey;
  /** A SponsorPaymaster signer: approves gas sponsorship. */
  readonly sponsorSigner: SigningKey;
  /** How long a sponsorship stays valid. */
  readonly sponsorshipTtlSeconds: number;
  readonly clock: () => Date;
}

/** Gas the simulation grants; generous, and paid at 1 wei so no deposit limits it. */
const SIMULATION_GAS = {
  verification: 2_000_000n,
  call: 8_000_000n,
  paymasterVerification: 200_000n,
  // Below the 2^24 transaction gas cap of EIP-7825 nodes.
  ethCall: 16_000_000n,
};
/** SponsorPaymaster validation needs ~35k gas (README gas table); v0.7 does not penalise unused verification gas. */
const PAYMASTER_VERIFICATION_GAS = 60_000n;
/** v0.7 charges 10 % of unused call gas, so the call limit is the measured use plus a small margin. */
const CALL_GAS_MARGIN_PERCENT = 10n;
const CALL_GAS_MARGIN_MIN = 10_000n;
const VERIFICATION_GAS_MARGIN_PERCENT = 30n;
const VERIFICATION_GAS_MARGIN_MIN = 20_000n;
/** EntryPoint v0.7 PENALTY_PERCENT. */
const PENALTY_PERCENT = 10n;
/** An upper bound of every packed word, so preVerificationGas never falls short of the final operation's. */
const WORST_WORD = `0x${"ff".repeat(32)}`;

/** A built, signed operation or the reason none can be built. */
export type BuildResult = { readonly built: BuiltOp } | { readonly failure: OperationFailure };

/**
 * Builds a request's ERC-4337 v0.7 UserOperation: initCode while the wallet has no code, the request's own
 * single-use nonce, the wallet call data, sponsorship by the SponsorPaymaster, gas limits measured by simulating
 * the operation (EntryPointSimulations.simulateHandleOp under a state override), and the owner key's signature.
 */
export async function buildUserOperation(
  tx: TxRecord,
  context: { deployed: boolean; fees: Fees },
  deps: OpBuilderDeps,
): Promise<BuildResult> {
  const factory = deps.factories[tx.accountType];
  const initCode = context.deployed
    ? "0x"
    : packInitCode(factory, createAccountCallData(walletSalt(tx.accountType, parseUserId(tx.userId))));
  const base = {
    sender: tx.sender,
    nonce: requestNonce(tx.id),
    initCode,
    callData: walletCallData(tx.accountType, tx.calls, tx.delegatecall),
    signature: "0x",
  };
  const pvg = preVerificationGas({
    ...base,
    accountGasLimits: WORST_WORD,
    preVerificationGas: (1n << 64n) - 1n,
    gasFees: WORST_WORD,
    paymasterAndData: concat([
      deps.paymaster,
      getBytes(WORST_WORD).slice(0, 32),
      new Uint8Array(12).fill(0xff),
      new Uint8Array(65).fill(0xff),
    ]),
    signature: `0x${"ff".repeat(65)}`,
  });

  const validUntil = Math.floor(deps.clock().getTime() / 1000) + deps.sponsorshipTtlSeconds;
  const simulationOp = signOperation(
    {
      ...base,
      accountGasLimits: packAccountGasLimits(SIMULATION_GAS.verification, SIMULATION_GAS.call),
      preVerificationGas: pvg,
      gasFees: packGasFees(1n, 1n),
      paymasterAndData: "0x",
    },
    {
      paymaster: deps.paymaster,
      verificationGasLimit: SIMULATION_GAS.paymasterVerification,
      postOpGasLimit: 0n,
      validUntil,
      validAfter: 0,
    },
    deps,
  );
  const simulated = await simulate(simulationOp.userOp, deps);
  if ("failure" in simulated) return simulated;

  // preOpGas = validation (deployment, account, paymaster) + preVerificationGas; paid = gas at 1 wei, including
  // the 10 % penalty on unused call gas, which is undone here to find the execution gas used.
  const validationGas = simulated.preOpGas - pvg;
  const limit = SIMULATION_GAS.call;
  const actualGas = (simulated.paid * 100n - PENALTY_PERCENT * (limit + simulated.preOpGas)) / (100n - PENALTY_PERCENT);
  const executionGas = actualGas > simulated.preOpGas ? actualGas - simulated.preOpGas : 0n;
  const callGasLimit = withMargin(executionGas, CALL_GAS_MARGIN_PERCENT, CALL_GAS_MARGIN_MIN);
  const verificationGasLimit = withMargin(validationGas, VERIFICATION_GAS_MARGIN_PERCENT, VERIFICATION_GAS_MARGIN_MIN);

  const final = signOperation(
    {
      ...base,
      accountGasLimits: packAccountGasLimits(verificationGasLimit, callGasLimit),
      preVerificationGas: pvg,
      gasFees: packGasFees(context.fees.maxPriorityFeePerGas, context.fees.maxFeePerGas),
      paymasterAndData: "0x",
    },
    {
      paymaster: deps.paymaster,
      verificationGasLimit: PAYMASTER_VERIFICATION_GAS,
      postOpGasLimit: 0n,
      validUntil,
      validAfter: 0,
    },
    deps,
  );
  return { built: { txId: tx.id, ...final } };
}

const withMargin = (gas: bigint, percent: bigint, minimum: bigint): bigint => {
  const margin = (gas * percent) / 100n;
  return gas + (margin > minimum ? margin : minimum);
};

/** Attaches the sponsorship and the wallet signature: both EIP-191 signatures by the operator's hot keys. */
function signOperation(
  op: PackedUserOperation,
  terms: SponsorshipTerms,
  deps: OpBuilderDeps,
): { userOp: PackedUserOperation; userOpHash: string } {
  const unsponsored = { ...op, paymasterAndData: encodePaymasterAndData(terms) };
  const sponsorDigest = hashMessage(getBytes(sponsorshipHash(unsponsored, terms, deps.chainId)));
  const sponsored = {
    ...op,
    paymasterAndData: encodePaymasterAndData(terms, deps.sponsorSigner.sign(sponsorDigest).serialized),
  };
  const userOpHash = userOperationHash(sponsored, deps.entryPoint, deps.chainId);
  // The wallet's owner is the OwnerAccount, which checks its signer's raw signature over the EIP-191 digest.
  const signature = deps.walletSigner.sign(hashMessage(getBytes(userOpHash))).serialized;
  return { userOp: { ...sponsored, signature }, userOpHash };
}

/** Runs simulateHandleOp: the operation's validation and execution against the current chain state. */
async function simulate(
  op: PackedUserOperation,
  deps: OpBuilderDeps,
): Promise<{ preOpGas: bigint; paid: bigint } | { failure: OperationFailure }> {
  const data = entryPointInterface.encodeFunctionData("simulateHandleOp", [opTuple(op), deps.entryPoint, "0x"]);
  let result: string;
  try {
    result = await deps.provider.send("eth_call", [
      { to: deps.entryPoint, data, gas: toBeHex(SIMULATION_GAS.ethCall) },
      "latest",
      { [deps.entryPoint]: { code: ENTRY_POINT_SIMULATIONS_CODE } },
    ]);
  } catch (error) {
    const revert = revertDataOf(error);
    const decoded = revert === undefined ? undefined : decodeEntryPointError(revert);
    if (!decoded) throw error;
    return { failure: failureFromReason(String(decoded.args[1] ?? decoded.name)) };
  }
  const [execution] = entryPointInterface.decodeFunctionResult("simulateHandleOp", result);
  const account = parseValidationData(BigInt(execution.accountValidationData));
  if (account.sigFailed) return { failure: failureFromReason("AA24 signature error") };
  const paymaster = parseValidationData(BigInt(execution.paymasterValidationData));
  if (paymaster.sigFailed) return { failure: failureFromReason("AA34 signature error") };
  return { preOpGas: BigInt(execution.preOpGas), paid: BigInt(execution.paid) };
}
