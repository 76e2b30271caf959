import { dataLength, toBeHex } from "ethers";
import { revertDataOf } from "../chains/revertData";
import { BUNDLE_SIMULATOR_ADDRESS, BUNDLE_SIMULATOR_CODE } from "./bundleSimulatorCode";
import { ENTRY_POINT_SIMULATIONS_CODE, decodeEntryPointError, parseValidationData } from "./entryPoint";
import { decodeSimulateBundle, encodeSimulateBundle } from "./opsAbi";
import { type PackedUserOperation, packAccountGasLimits, packGasFees } from "./packedUserOperation";
import { type OperationFailure, failureFromReason } from "./failureCodes";
import { runIsolated } from "./isolateFailures";
import { type Draft, type OpBuilderDeps, signOperation, terms } from "./operationDraft";
import { simulationCustodyData } from "./custodySealing";

/**
 * Gas the simulation grants, paid at 1 wei so no deposit limits it. The call limit is moderate so that a whole
 * bundle fits one eth_call under EIP-7825's 2^24 gas cap (the EntryPoint wants the call limit left over at each
 * operation); an operation that uses nearly all of it is simulated again alone with HEAVY_CALL_GAS.
 */
export const SIMULATION_GAS = { verification: 2_000_000n, call: 1_000_000n, paymasterVerification: 200_000n };
export const HEAVY_CALL_GAS = 10_000_000n;
const ETH_CALL_GAS = 16_000_000n;
/**
 * Gas budget of one simulation call and what an operation is assumed to need of it (generously: a deployment
 * and a call of the simulation's call limit are not assumed together); operations past it go to another call.
 */
const SIMULATION_BUDGET = 6_400_000n;
const SIMULATION_GAS_PER_OP = { deployed: 200_000n, undeployed: 450_000n };
/**
 * What each byte of an operation costs the simulation call beyond that: its calldata gas (EIP-2028: 16) and the
 * simulator's memory, which keeps every operation's encoding (copies and quadratic expansion, counted generously).
 */
const SIMULATION_GAS_PER_BYTE = 40n;
/**
 * validUntil of every simulated operation: 0x01010101, in July 1970, so past on every chain whatever its clock (0
 * would mean "no end"). EntryPointSimulations.simulateHandleOp returns the paymaster's validation data without
 * checking its time range, while handleOps rejects it (EntryPoint._validateAccountAndPaymasterValidationData: AA32).
 * Six bytes, the first two zero as in any validUntil before 2106, the rest not: the simulated operation has the
 * length and the zero bytes of the real build, so what it measures holds for it.
 */
export const EXPIRED_SPONSORSHIP_END = 0x01010101;
/** EntryPoint v0.7 PENALTY_PERCENT. */
const PENALTY_PERCENT = 10n;

/** What simulating one operation returned, or why it was rejected. */
type Simulated = { readonly preOpGas: bigint; readonly paid: bigint } | { readonly failure: OperationFailure };
/** A simulation's result with the call gas it granted. */
export type Measurement = (Simulated & { readonly callLimit: bigint }) | { readonly failure: OperationFailure };

/**
 * The execution gas an operation used: `paid` is the gas at 1 wei including the 10 % penalty on unused call
 * gas, which is undone here (paid = A + 10 % · (limit − (A − preOpGas)), solved for A − preOpGas).
 */
export function executionGas(m: { preOpGas: bigint; paid: bigint }, callLimit: bigint): bigint {
  const actual = (m.paid * 100n - PENALTY_PERCENT * (callLimit + m.preOpGas)) / (100n - PENALTY_PERCENT);
  return actual > m.preOpGas ? actual - m.preOpGas : 0n;
}

/** Simulates drafts (in calls that fit SIMULATION_BUDGET, each one eth_call) with `callLimit` call gas each. */
export async function measure(
  drafts: readonly Draft[],
  callLimit: bigint,
  deps: OpBuilderDeps,
): Promise<Measurement[]> {
  // Each operation's simulation may use its granted limits and some EntryPoint overhead, no more.
  const gasPerOp = SIMULATION_GAS.verification + callLimit + SIMULATION_GAS.paymasterVerification + 300_000n;
  const results = new Array<Measurement | undefined>(drafts.length);
  const recorded = (o: Simulated): Measurement => ("failure" in o ? o : { ...o, callLimit });
  const simulate = async (indexes: readonly number[]) =>
    runIsolated(await Promise.all(indexes.map((i) => simulationOp(drafts[i]!, callLimit, deps))), {
      run: (ops) => simulateBundle(ops, gasPerOp, deps),
      nodeAnswers: async () => (await simulateBundle([], gasPerOp, deps)).length === 0,
      failedAlone: () => ({ failure: SIMULATION_FAILED }),
    });
  let waiting = drafts.map((_, i) => i);
  while (waiting.length > 0) {
    const skipped: number[] = [];
    const alone: number[] = [];
    // The calls are independent (each on the latest state), so they go out together.
    const chunks = simulationChunks(waiting.map((i) => ({ i, d: drafts[i]! })));
    const answers = await Promise.all(chunks.map((chunk) => simulate(chunk.map(({ i }) => i))));
    answers.forEach((outcomes, c) =>
      outcomes.forEach((o, k) => {
        const index = chunks[c]![k]!.i;
        // The first of a call had the call's gas to itself: skipped there, it never fits (the node's call gas cap).
        if (o === "skipped") {
          if (k === 0) results[index] = { failure: NOT_SIMULATED };
          else skipped.push(index);
        } else if ("failure" in o && k > 0 && o.failure !== SIMULATION_FAILED) {
          // Unlike handleOps, which validates every operation before executing any, the simulator validates each
          // after the ones before it have executed: an operation can make a later one fail (e.g. by deploying its
          // wallet). A failure seen after others is simulated again alone before it is charged.
          alone.push(index);
        } else {
          results[index] = recorded(o);
        }
      }),
    );
    const rechecked = await Promise.all(alone.map((i) => simulate([i])));
    rechecked.forEach(([o], n) => {
      results[alone[n]!] = o === undefined || o === "skipped" ? { failure: NOT_SIMULATED } : recorded(o);
    });
    // Every call settles its first operation, so this ends.
    waiting = skipped;
  }
  return results as Measurement[];
}

/**
 * An operation whose simulation makes the node fail (no revert data, an error, no answer in time) while the node
 * answers simulations without it. Retried: it may be the node's passing trouble; TX_MAX_ATTEMPTS bounds it.
 */
const SIMULATION_FAILED: OperationFailure = {
  code: "SIMULATION_FAILED",
  action: "retry",
  message: "the node could not simulate this operation (no answer, or an error without revert data)",
};

/** An operation the node's call gas cap leaves too little to simulate, even alone. Retried, as the cap may rise. */
const NOT_SIMULATED: OperationFailure = {
  code: "SIMULATION_OUT_OF_GAS",
  action: "retry",
  message: "the node's call gas cap leaves too little gas to simulate this operation",
};

/**
 * The operation as simulated: generous limits, fees of 1 wei, and a sponsorship that ended long ago
 * (EXPIRED_SPONSORSHIP_END), so that nobody who sees the simulation call can have it included: handleOps rejects it
 * (AA32). Code 2.0.0: real signatures (the wallet signature covers paymasterAndData, so it serves no other window).
 * Code 2.1: no custody signature at all, a throwaway key's in its place (the paymaster's validation runs as it will,
 * and fails: AA34 for anyone who sends it).
 */
export const simulationOp = async (d: Draft, callLimit: bigint, deps: OpBuilderDeps): Promise<PackedUserOperation> => {
  const op = {
    ...d.base,
    accountGasLimits: packAccountGasLimits(SIMULATION_GAS.verification, callLimit),
    preVerificationGas: d.preVerificationGas,
    gasFees: packGasFees(1n, 1n),
    paymasterAndData: "0x",
    signature: "0x",
  };
  const sponsorship = { ...terms(d, SIMULATION_GAS.paymasterVerification, deps), validUntil: EXPIRED_SPONSORSHIP_END };
  if (d.scheme === "custodyRoot") return { ...op, paymasterAndData: simulationCustodyData(sponsorship, d.proofDepth) };
  return (await signOperation(op, sponsorship, d.tx, deps)).userOp;
};

/** Drafts in order, cut into runs that fit SIMULATION_BUDGET (their gas and their bytes). */
function simulationChunks<T extends { d: Draft }>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let gas = 0n;
  for (const item of items) {
    const { initCode, callData } = item.d.base;
    const need =
      (initCode === "0x" ? SIMULATION_GAS_PER_OP.deployed : SIMULATION_GAS_PER_OP.undeployed) +
      SIMULATION_GAS_PER_BYTE * BigInt(dataLength(initCode) + dataLength(callData));
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
  // A custodial 2.1 operation is simulated under a throwaway key's signature: its paymaster's "failed" is expected.
  const custody = deps.custodyPaymaster?.toLowerCase();
  const throwawaySigned = (i: number) =>
    custody !== undefined && ops[i]!.paymasterAndData.slice(0, 42).toLowerCase() === custody;
  return decodeSimulateBundle(answer).map((outcome, i) => {
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
    if (parseValidationData(outcome.paymasterValidationData).sigFailed && !throwawaySigned(i))
      return { failure: failureFromReason("AA34 signature error") };
    return { preOpGas: outcome.preOpGas, paid: outcome.paid };
  });
}
