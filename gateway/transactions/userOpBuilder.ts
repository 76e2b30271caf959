import { type JsonRpcProvider, concat, toBeHex } from "ethers";
import type { DigestSigner } from "../crypto/digestSigner";
import { revertDataOf } from "../chains/revertData";
import { parseUserId } from "../identity/userId";
import { type AccountType, walletSalt } from "../identity/walletAddress";
import type { BuiltOp, TxRecord } from "../storage/transactionsRepository";
import { BUNDLE_SIMULATOR_ADDRESS, BUNDLE_SIMULATOR_CODE } from "../userop/bundleSimulatorCode";
import {
  ENTRY_POINT_SIMULATIONS_CODE,
  decodeEntryPointError,
  parseValidationData,
  requestNonce,
} from "../userop/entryPoint";
import { decodeSimulateBundle, encodeSimulateBundle } from "../userop/opsAbi";
import {
  type PackedUserOperation,
  packAccountGasLimits,
  packGasFees,
  packInitCode,
  userOperationHash,
} from "../userop/packedUserOperation";
import { preVerificationGas } from "../userop/preVerificationGas";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "../userop/sponsorship";
import { personalDigest } from "../userop/words";
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
  readonly walletSigner: DigestSigner;
  /** A SponsorPaymaster signer: approves gas sponsorship. */
  readonly sponsorSigner: DigestSigner;
  /** How long a sponsorship stays valid. */
  readonly sponsorshipTtlSeconds: number;
  /** The most call gas the paymaster sponsors for one operation; more is refused (CALL_GAS_TOO_HIGH). */
  readonly maxCallGas: bigint;
  readonly clock: () => Date;
}

/**
 * Gas the simulation grants, paid at 1 wei so no deposit limits it. The call limit is moderate so that a whole
 * bundle fits one eth_call under EIP-7825's 2^24 gas cap (the EntryPoint wants the call limit left over at each
 * operation); an operation that uses nearly all of it is simulated again alone with HEAVY_CALL_GAS.
 */
const SIMULATION_GAS = { verification: 2_000_000n, call: 1_000_000n, paymasterVerification: 200_000n };
const HEAVY_CALL_GAS = 10_000_000n;
const ETH_CALL_GAS = 16_000_000n;
/**
 * Gas budget of one simulation call and what an operation is assumed to need of it (generously: a deployment
 * and a call of the simulation's call limit are not assumed together); operations past it go to another call.
 */
const SIMULATION_BUDGET = 6_400_000n;
const SIMULATION_GAS_PER_OP = { deployed: 200_000n, undeployed: 450_000n };
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

/** One request's operation before its gas is measured. */
interface Draft {
  readonly tx: TxRecord;
  readonly base: Pick<PackedUserOperation, "sender" | "nonce" | "initCode" | "callData">;
  readonly preVerificationGas: bigint;
  readonly validUntil: number;
}

/** What simulating one operation returned, or why it was rejected. */
type Simulated = { readonly preOpGas: bigint; readonly paid: bigint } | { readonly failure: OperationFailure };
/** A simulation's result with the call gas it granted. */
type Measurement = (Simulated & { readonly callLimit: bigint }) | { readonly failure: OperationFailure };

/**
 * Builds requests' ERC-4337 v0.7 UserOperations: initCode while the wallet has no code, the request's own
 * single-use nonce, the wallet call data, sponsorship by the SponsorPaymaster, gas limits measured by simulating
 * the operations (EntryPointSimulations.simulateHandleOp, all of a bundle in one eth_call under a state
 * override), and the owner key's signature. Results are in the order of `requests`.
 */
export async function buildUserOperations(
  requests: readonly { tx: TxRecord; deployed: boolean }[],
  fees: Fees,
  deps: OpBuilderDeps,
): Promise<BuildResult[]> {
  const drafts = requests.map(({ tx, deployed }) => draft(tx, deployed, deps));
  const measured = await measure(drafts, SIMULATION_GAS.call, deps);
  // Operations that used nearly all the simulation's call gas may need more: measured again alone, generously.
  for (const [i, m] of measured.entries()) {
    const outOfGas = "failure" in m && m.failure.code === "SIMULATION_OUT_OF_GAS";
    if (outOfGas || ("paid" in m && executionGas(m, SIMULATION_GAS.call) * 10n >= SIMULATION_GAS.call * 9n)) {
      measured[i] = (await measure([drafts[i]!], HEAVY_CALL_GAS, deps))[0]!;
    }
  }
  return drafts.map((d, i) => finish(d, measured[i]!, fees, deps));
}

/** Builds one request's operation (buildUserOperations for a bundle of one). */
export async function buildUserOperation(
  tx: TxRecord,
  context: { deployed: boolean; fees: Fees },
  deps: OpBuilderDeps,
): Promise<BuildResult> {
  const [result] = await buildUserOperations([{ tx, deployed: context.deployed }], context.fees, deps);
  return result!;
}

function draft(tx: TxRecord, deployed: boolean, deps: OpBuilderDeps): Draft {
  const initCode = deployed
    ? "0x"
    : packInitCode(
        deps.factories[tx.accountType],
        createAccountCallData(walletSalt(tx.accountType, parseUserId(tx.userId))),
      );
  const base = {
    sender: tx.sender,
    nonce: requestNonce(tx.id),
    initCode,
    callData: walletCallData(tx.accountType, tx.calls, tx.delegatecall),
  };
  const pvg = preVerificationGas({
    ...base,
    accountGasLimits: WORST_WORD,
    preVerificationGas: (1n << 64n) - 1n,
    gasFees: WORST_WORD,
    paymasterAndData: concat([deps.paymaster, WORST_WORD, `0x${"ff".repeat(12 + 65)}`]),
    signature: `0x${"ff".repeat(65)}`,
  });
  const validUntil = Math.floor(deps.clock().getTime() / 1000) + deps.sponsorshipTtlSeconds;
  return { tx, base, preVerificationGas: pvg, validUntil };
}

/** The finished operation: limits from the measurement, the real fees, fresh signatures. */
function finish(d: Draft, m: Measurement, fees: Fees, deps: OpBuilderDeps): BuildResult {
  if ("failure" in m) return m;
  // preOpGas = validation (deployment, account, paymaster) + preVerificationGas.
  const validationGas = m.preOpGas - d.preVerificationGas;
  const callGasLimit = withMargin(executionGas(m, m.callLimit), CALL_GAS_MARGIN_PERCENT, CALL_GAS_MARGIN_MIN);
  if (callGasLimit > deps.maxCallGas) {
    // A sponsored call may not burn the paymaster's deposit without bound (an endless loop costs all it gets).
    return {
      failure: {
        code: "CALL_GAS_TOO_HIGH",
        action: "fail",
        message: `the calls need about ${callGasLimit} gas; this deployment sponsors at most ${deps.maxCallGas}`,
      },
    };
  }
  const verificationGasLimit = withMargin(validationGas, VERIFICATION_GAS_MARGIN_PERCENT, VERIFICATION_GAS_MARGIN_MIN);
  const signed = signOperation(
    {
      ...d.base,
      accountGasLimits: packAccountGasLimits(verificationGasLimit, callGasLimit),
      preVerificationGas: d.preVerificationGas,
      gasFees: packGasFees(fees.maxPriorityFeePerGas, fees.maxFeePerGas),
      paymasterAndData: "0x",
      signature: "0x",
    },
    terms(d, PAYMASTER_VERIFICATION_GAS, deps),
    deps,
  );
  return { built: { txId: d.tx.id, ...signed } };
}

/**
 * The execution gas an operation used: `paid` is the gas at 1 wei including the 10 % penalty on unused call
 * gas, which is undone here (paid = A + 10 % · (limit − (A − preOpGas)), solved for A − preOpGas).
 */
function executionGas(m: { preOpGas: bigint; paid: bigint }, callLimit: bigint): bigint {
  const actual = (m.paid * 100n - PENALTY_PERCENT * (callLimit + m.preOpGas)) / (100n - PENALTY_PERCENT);
  return actual > m.preOpGas ? actual - m.preOpGas : 0n;
}

const withMargin = (gas: bigint, percent: bigint, minimum: bigint): bigint => {
  const margin = (gas * percent) / 100n;
  return gas + (margin > minimum ? margin : minimum);
};

const terms = (d: Draft, paymasterVerification: bigint, deps: OpBuilderDeps): SponsorshipTerms => ({
  paymaster: deps.paymaster,
  verificationGasLimit: paymasterVerification,
  postOpGasLimit: 0n,
  validUntil: d.validUntil,
  validAfter: 0,
});

/** Attaches the sponsorship and the wallet signature: both EIP-191 signatures by the operator's hot keys. */
function signOperation(
  op: PackedUserOperation,
  sponsorship: SponsorshipTerms,
  deps: OpBuilderDeps,
): { userOp: PackedUserOperation; userOpHash: string } {
  const unsponsored = { ...op, paymasterAndData: encodePaymasterAndData(sponsorship) };
  const sponsorSignature = deps.sponsorSigner.sign(
    personalDigest(sponsorshipHash(unsponsored, sponsorship, deps.chainId)),
  );
  const sponsored = { ...op, paymasterAndData: encodePaymasterAndData(sponsorship, sponsorSignature) };
  const userOpHash = userOperationHash(sponsored, deps.entryPoint, deps.chainId);
  // The wallet's owner is the OwnerAccount, which checks its signer's raw signature over the EIP-191 digest.
  return { userOp: { ...sponsored, signature: deps.walletSigner.sign(personalDigest(userOpHash)) }, userOpHash };
}

/** Simulates drafts (in chunks of SIMULATION_CHUNK, each one eth_call) with `callLimit` call gas each. */
async function measure(drafts: readonly Draft[], callLimit: bigint, deps: OpBuilderDeps): Promise<Measurement[]> {
  // Each operation's simulation may use its granted limits and some EntryPoint overhead, no more.
  const gasPerOp = SIMULATION_GAS.verification + callLimit + SIMULATION_GAS.paymasterVerification + 300_000n;
  const results = new Array<Measurement | undefined>(drafts.length);
  let waiting = drafts.map((_, i) => i);
  while (waiting.length > 0) {
    const skipped: number[] = [];
    for (const chunk of simulationChunks(waiting.map((i) => ({ i, d: drafts[i]! })))) {
      const ops = chunk.map(({ d }) => simulationOp(d, callLimit, deps));
      const outcomes = await simulateBundle(ops, gasPerOp, deps);
      outcomes.forEach((o, k) => {
        const index = chunk[k]!.i;
        if (o === "skipped") skipped.push(index);
        else results[index] = "failure" in o ? o : { ...o, callLimit };
      });
    }
    // The call's gas ran low before these; the first of every call is always simulated, so this ends.
    waiting = skipped;
  }
  return results as Measurement[];
}

/** The operation as simulated: generous limits, fees of 1 wei, real signatures. */
const simulationOp = (d: Draft, callLimit: bigint, deps: OpBuilderDeps): PackedUserOperation =>
  signOperation(
    {
      ...d.base,
      accountGasLimits: packAccountGasLimits(SIMULATION_GAS.verification, callLimit),
      preVerificationGas: d.preVerificationGas,
      gasFees: packGasFees(1n, 1n),
      paymasterAndData: "0x",
      signature: "0x",
    },
    terms(d, SIMULATION_GAS.paymasterVerification, deps),
    deps,
  ).userOp;

/** Drafts in order, cut into runs that fit SIMULATION_BUDGET. */
function simulationChunks<T extends { d: Draft }>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let gas = 0n;
  for (const item of items) {
    const need = item.d.base.initCode === "0x" ? SIMULATION_GAS_PER_OP.deployed : SIMULATION_GAS_PER_OP.undeployed;
    if (current.length > 0 && gas + need > SIMULATION_BUDGET) {
      chunks.push(current);
      current = [];
      gas = 0n;
    }
    current.push(item);
    gas += need;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * One eth_call: BundleSimulator runs simulateHandleOp for each operation in order, each within `gasPerOp`;
 * each outcome decoded. An operation that ran out of its gas (empty revert data, or AA95) is reported as
 * SIMULATION_OUT_OF_GAS, a retryable code: it says nothing certain about the operation.
 */
async function simulateBundle(
  ops: readonly PackedUserOperation[],
  gasPerOp: bigint,
  deps: OpBuilderDeps,
): Promise<(Simulated | "skipped")[]> {
  let answer: string;
  try {
    answer = await deps.provider.send("eth_call", [
      {
        to: BUNDLE_SIMULATOR_ADDRESS,
        data: encodeSimulateBundle(deps.entryPoint, ops, gasPerOp),
        gas: toBeHex(ETH_CALL_GAS),
      },
      "latest",
      {
        [deps.entryPoint]: { code: ENTRY_POINT_SIMULATIONS_CODE },
        [BUNDLE_SIMULATOR_ADDRESS]: { code: BUNDLE_SIMULATOR_CODE },
      },
    ]);
  } catch (error) {
    // The simulator itself does not revert; a revert here is the node's and says nothing about an operation.
    throw new Error(`bundle simulation failed: ${String(revertDataOf(error) ?? (error as Error).message)}`, {
      cause: error,
    });
  }
  return decodeSimulateBundle(answer).map((outcome) => {
    if (outcome.kind === "skipped") return "skipped";
    if (outcome.kind === "reverted") {
      const decoded = decodeEntryPointError(outcome.revertData);
      const reason = decoded ? String(decoded.args[1] ?? decoded.name) : undefined;
      if (reason === undefined || reason.startsWith("AA95")) {
        return {
          failure: { code: "SIMULATION_OUT_OF_GAS", action: "retry", message: "the simulation ran out of gas" },
        };
      }
      return { failure: failureFromReason(reason) };
    }
    if (parseValidationData(outcome.accountValidationData).sigFailed)
      return { failure: failureFromReason("AA24 signature error") };
    if (parseValidationData(outcome.paymasterValidationData).sigFailed)
      return { failure: failureFromReason("AA34 signature error") };
    return { preOpGas: outcome.preOpGas, paid: outcome.paid };
  });
}
