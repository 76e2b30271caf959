import { parseUserId } from "../identity/userId";
import { walletSalt } from "../identity/walletAddress";
import type { BuiltUserOp } from "../transactions/builtOp";
import type { WalletTxRecord } from "../transactions/txRecord";
import { requestNonce } from "./entryPoint";
import { packAccountGasLimits, packGasFees, packInitCode } from "./packedUserOperation";
import { MAX_BUNDLE_BYTES, operationBytes } from "./operationSize";
import { operationGas } from "./operationGas";
import { preVerificationGasBound } from "./preVerificationGas";
import { createAccountCallData, walletCallData } from "./callData";
import type { OperationFailure } from "./failureCodes";
import { HEAVY_CALL_GAS, type Measurement, SIMULATION_GAS, executionGas, measure } from "./gasSimulation";
import { type Draft, type Fees, type OpBuilderDeps, expectedGasPrice, signOperation, terms } from "./operationDraft";
import { mapLimit } from "./mapLimit";
import { l1DataGas } from "./l1DataGas";
import type { L1FeeQuote } from "../chains/l1DataFee";

export type { Fees, OpBuilderDeps } from "./operationDraft";

/** SponsorPaymaster validation needs ~35k gas (README gas table); v0.7 does not penalise unused verification gas. */
const PAYMASTER_VERIFICATION_GAS = 60_000n;
/** v0.7 charges 10 % of unused call gas, so the call limit is the measured use plus a small margin. */
const CALL_GAS_MARGIN_PERCENT = 10n;
const CALL_GAS_MARGIN_MIN = 10_000n;
const VERIFICATION_GAS_MARGIN_PERCENT = 30n;
const VERIFICATION_GAS_MARGIN_MIN = 20_000n;
/** The largest signatures an operation carries, for its size before it is signed. */
const WORST_SIGNATURE = `0x${"ff".repeat(65)}`;
const WORST_PAYMASTER_AND_DATA = `0x${"ff".repeat(20 + 32 + 12 + 65)}`;

/** A built, signed operation or the reason none can be built. */
export type BuildResult = { readonly built: BuiltUserOp } | { readonly failure: OperationFailure };

/**
 * Builds requests' ERC-4337 v0.7 UserOperations: initCode while the wallet has no code, the request's own
 * single-use nonce, the wallet call data, sponsorship by the SponsorPaymaster, gas limits measured by simulating
 * the operations (EntryPointSimulations.simulateHandleOp, all of a bundle in one eth_call under a state
 * override), and the owner key's signature. On a chain with an L1 data fee, each operation's preVerificationGas
 * also holds the fee of its bytes at its maxFeePerGas, from one read of the chain's oracle for all of them.
 * Results are in the order of `requests`.
 */
export async function buildUserOperations(
  requests: readonly { tx: WalletTxRecord; deployed: boolean }[],
  fees: Fees,
  deps: OpBuilderDeps,
): Promise<BuildResult[]> {
  const attempts = requests.map(({ tx, deployed }) => draftOrFailure(tx, deployed, deps));
  const drafts = attempts.filter((a): a is Draft => !("failure" in a));
  const [measured, l1Quote] = await Promise.all([
    measure(drafts, SIMULATION_GAS.call, deps),
    drafts.length > 0 ? deps.l1DataFee?.quote() : undefined,
  ]);
  // Operations that used nearly all the simulation's call gas may need more: measured again alone, a few at a time,
  // with a little more than the most this deployment sponsors (any app can ask for these; they must stay cheap).
  const heavy = measured.flatMap((m, i) => {
    const outOfGas = "failure" in m && m.failure.code === "SIMULATION_OUT_OF_GAS";
    return outOfGas || ("paid" in m && executionGas(m, SIMULATION_GAS.call) * 10n >= SIMULATION_GAS.call * 9n)
      ? [i]
      : [];
  });
  const heavyLimit = heavyCallLimit(deps.maxCallGas);
  const remeasured = await mapLimit(
    heavy,
    HEAVY_AT_ONCE,
    async (i) => (await measure([drafts[i]!], heavyLimit, deps))[0]!,
  );
  heavy.forEach((i, n) => {
    const m = remeasured[n]!;
    // Out of gas with more than the sponsored maximum: it needs more than this deployment pays for.
    measured[i] = "failure" in m && m.failure.code === "SIMULATION_OUT_OF_GAS" ? callGasTooHigh(heavyLimit, deps) : m;
  });
  const finished = await Promise.all(drafts.map((d, i) => finish(d, measured[i]!, fees, l1Quote, deps)));
  const byTx = new Map(drafts.map((d, i) => [d.tx.id, finished[i]!]));
  return attempts.map((a) => ("failure" in a ? a : byTx.get(a.tx.id)!));
}

/**
 * A request's draft, or why it fails alone without costing a node call: BUILD_FAILED when its stored calls cannot
 * be encoded, CALL_DATA_TOO_LARGE when its operation could never fit a bundle transaction or needs more
 * preVerificationGas than TX_MAX_PRE_VERIFICATION_GAS (a request stored before acceptance bounded these).
 */
function draftOrFailure(
  tx: WalletTxRecord,
  deployed: boolean,
  deps: OpBuilderDeps,
): Draft | { failure: OperationFailure } {
  let d: Draft;
  try {
    d = draft(tx, deployed, deps);
  } catch (error) {
    const message = `the operation could not be built: ${(error as Error).message}`.slice(0, 300);
    return { failure: { code: "BUILD_FAILED", action: "fail", message } };
  }
  const bytes = worstBytes(d);
  if (bytes > MAX_BUNDLE_BYTES) {
    const message = `the operation has ${bytes} bytes; a bundle transaction carries at most ${MAX_BUNDLE_BYTES}`;
    return { failure: { code: "CALL_DATA_TOO_LARGE", action: "fail", message } };
  }
  if (d.preVerificationGas > deps.maxPreVerificationGas) {
    const message =
      `the operation needs ${d.preVerificationGas} preVerificationGas; ` +
      `this deployment sponsors at most ${deps.maxPreVerificationGas} (TX_MAX_PRE_VERIFICATION_GAS)`;
    return { failure: { code: "CALL_DATA_TOO_LARGE", action: "fail", message } };
  }
  return d;
}

/** Builds one request's operation (buildUserOperations for a bundle of one). */
export async function buildUserOperation(
  tx: WalletTxRecord,
  context: { deployed: boolean; fees: Fees },
  deps: OpBuilderDeps,
): Promise<BuildResult> {
  const [result] = await buildUserOperations([{ tx, deployed: context.deployed }], context.fees, deps);
  return result!;
}

function draft(tx: WalletTxRecord, deployed: boolean, deps: OpBuilderDeps): Draft {
  // A wallet request's record (Safe requests are relayer transactions, never UserOperations).
  const type = tx.accountType;
  const initCode = deployed
    ? "0x"
    : packInitCode(deps.factories[type], createAccountCallData(walletSalt(type, parseUserId(tx.userId))));
  const base = {
    sender: tx.sender,
    nonce: requestNonce(tx.id),
    initCode,
    callData: walletCallData(type, tx.calls, tx.delegatecall),
  };
  const pvg = preVerificationGasBound(base, deps.paymaster);
  const validUntil = Math.floor(deps.clock().getTime() / 1000) + deps.sponsorshipTtlSeconds;
  return { tx, base, preVerificationGas: pvg, validUntil };
}

/** The most bytes a draft's operation has in handleOps's call data, with its signatures still to come. */
const worstBytes = (d: Draft): number =>
  operationBytes({ ...d.base, paymasterAndData: WORST_PAYMASTER_AND_DATA, signature: WORST_SIGNATURE });

/** Heavy re-measurements sent at once. */
const HEAVY_AT_ONCE = 4;

/** The call gas of a heavy re-measurement: enough to see whether an operation fits under `maxCallGas` with margin. */
const heavyCallLimit = (maxCallGas: bigint): bigint => {
  const limit = maxCallGas + maxCallGas / 5n;
  return limit < HEAVY_CALL_GAS ? limit : HEAVY_CALL_GAS;
};

/** A sponsored call may not burn the paymaster's deposit without bound (an endless loop costs all it gets). */
const callGasTooHigh = (gas: bigint, deps: OpBuilderDeps): { failure: OperationFailure } => ({
  failure: {
    code: "CALL_GAS_TOO_HIGH",
    action: "fail",
    message: `the calls need about ${gas} gas or more; this deployment sponsors at most ${deps.maxCallGas}`,
  },
});

/**
 * The finished operation: limits from the measurement, the real fees, fresh signatures; preVerificationGas with the
 * L1 data fee of its bytes at the price it will be charged (base fee + tip, not its max fee: at the max fee the
 * relayer would get back about half) where the chain charges one (`l1Quote`), so the EntryPoint charges the
 * paymaster for it, the relayer is paid it back, and the app's budget counts it (settled from actualGasUsed).
 */
async function finish(
  d: Draft,
  m: Measurement,
  fees: Fees,
  l1Quote: L1FeeQuote | undefined,
  deps: OpBuilderDeps,
): Promise<BuildResult> {
  if ("failure" in m) return m;
  const l1Gas = l1Quote ? l1DataGas(l1Quote, worstBytes(d), expectedGasPrice(fees)) : 0n;
  // preOpGas = validation (deployment, account, paymaster) + preVerificationGas.
  const validationGas = m.preOpGas - d.preVerificationGas;
  const callGasLimit = withMargin(executionGas(m, m.callLimit), CALL_GAS_MARGIN_PERCENT, CALL_GAS_MARGIN_MIN);
  if (callGasLimit > deps.maxCallGas) return callGasTooHigh(callGasLimit, deps);
  const verificationGasLimit = withMargin(validationGas, VERIFICATION_GAS_MARGIN_PERCENT, VERIFICATION_GAS_MARGIN_MIN);
  const signed = await signOperation(
    {
      ...d.base,
      accountGasLimits: packAccountGasLimits(verificationGasLimit, callGasLimit),
      preVerificationGas: d.preVerificationGas + l1Gas,
      gasFees: packGasFees(fees.maxPriorityFeePerGas, fees.maxFeePerGas),
      paymasterAndData: "0x",
      signature: "0x",
    },
    terms(d, PAYMASTER_VERIFICATION_GAS, deps),
    d.tx,
    deps,
  );
  return reservationExceeded(d.tx, operationGas(signed.userOp)) ?? { built: { txId: d.tx.id, ...signed } };
}

/**
 * An operation must never cost more than its request reserved from the app's budget at acceptance (the budget
 * counted that much, no more). A reservation of 0 is a request accepted before budgets existed: nothing to bound.
 */
const reservationExceeded = (tx: WalletTxRecord, maxCost: bigint): { failure: OperationFailure } | undefined => {
  const reserved = tx.reservedGas ?? 0n;
  if (reserved === 0n || maxCost <= reserved) return undefined;
  const message = `the operation may cost up to ${maxCost} gas; its request reserved ${reserved} from the budget`;
  return { failure: { code: "RESERVATION_EXCEEDED", action: "fail", message } };
};

const withMargin = (gas: bigint, percent: bigint, minimum: bigint): bigint => {
  const margin = (gas * percent) / 100n;
  return gas + (margin > minimum ? margin : minimum);
};
