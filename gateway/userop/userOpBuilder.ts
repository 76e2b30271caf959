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
import { type UnsealedUserOp, placeholderCustodyData, proofDepthFor, sealCustodyOps } from "./custodySealing";
import type { SigningScheme } from "./walletSchemes";

export type { Fees, OpBuilderDeps } from "./operationDraft";

/** SponsorPaymaster validation needs ~35k gas (README gas table); v0.7 does not penalise unused verification gas. */
const PAYMASTER_VERIFICATION_GAS = 60_000n;
/** v0.7 charges 10 % of unused call gas, so the call limit is the measured use plus a small margin. */
const CALL_GAS_MARGIN_PERCENT = 10n;
const CALL_GAS_MARGIN_MIN = 10_000n;
const VERIFICATION_GAS_MARGIN_PERCENT = 30n;
const VERIFICATION_GAS_MARGIN_MIN = 20_000n;
/**
 * Gas a wallet's creation needs beyond what it measured after another creation in the same simulation call: that one
 * warmed the creator, the owner account, the factory and both implementations (EIP-2929: 2,600 per cold account and
 * 2,100 per cold slot against 100 warm). A public bundler validates each operation alone, cold, and refuses one whose
 * factory runs out of gas ("factory internally reverts on oog"). Measured: 25.7k on the creator path; unused
 * verification gas costs nothing in v0.7.
 */
const COLD_CREATION_GAS = 32_000n;
/** The largest signatures an operation carries, for its size before it is signed. */
const WORST_SIGNATURE = `0x${"ff".repeat(65)}`;
const WORST_PAYMASTER_AND_DATA = `0x${"ff".repeat(20 + 32 + 12 + 65)}`;

/**
 * A built, signed operation; a custodial 2.1 operation built and waiting for its bundle's root signature
 * (custodySealing.ts); or the reason none can be built.
 */
export type BuildResult =
  { readonly built: BuiltUserOp } | { readonly unsealed: UnsealedUserOp } | { readonly failure: OperationFailure };

/** A request to build: its record, whether its wallet has code, and how its operation is authorized. */
export interface BuildRequest {
  readonly tx: WalletTxRecord;
  readonly deployed: boolean;
  /** Default ownerSignature (wallet code 2.0.0). */
  readonly scheme?: SigningScheme;
}

/**
 * Builds requests' ERC-4337 v0.7 UserOperations: initCode while the wallet has no code, the request's own
 * single-use nonce, the wallet call data, sponsorship by the SponsorPaymaster, gas limits measured by simulating
 * the operations (EntryPointSimulations.simulateHandleOp, all of a bundle in one eth_call under a state
 * override), and the owner key's signature, or, for a custodial wallet on code 2.1, no signature yet: its
 * operation waits for the root its bundle signs once (sealCustodyOps). On a chain with an L1 data fee, each
 * operation's preVerificationGas also holds the fee of its bytes at its maxFeePerGas, from one read of the chain's
 * oracle for all of them. Results are in the order of `requests`.
 */
export async function buildUserOperations(
  requests: readonly BuildRequest[],
  fees: Fees,
  deps: OpBuilderDeps,
): Promise<BuildResult[]> {
  // One tree over every custodial operation built here at most: its depth bounds each one's proof.
  const proofDepth = proofDepthFor(requests.filter((r) => r.scheme === "custodyRoot").length);
  const attempts = requests.map((r) => draftOrFailure(r, proofDepth, deps));
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
  request: BuildRequest,
  proofDepth: number,
  deps: OpBuilderDeps,
): Draft | { failure: OperationFailure } {
  let d: Draft;
  try {
    d = draft(request, proofDepth, deps);
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

/** Builds one request's operation, signed (buildUserOperations for a bundle of one; a custody root of one). */
export async function buildUserOperation(
  tx: WalletTxRecord,
  context: { deployed: boolean; fees: Fees; scheme?: SigningScheme },
  deps: OpBuilderDeps,
): Promise<{ readonly built: BuiltUserOp } | { readonly failure: OperationFailure }> {
  const request = { tx, deployed: context.deployed, ...(context.scheme ? { scheme: context.scheme } : {}) };
  const [result] = await buildUserOperations([request], context.fees, deps);
  if (!("unsealed" in result!)) return result!;
  const [built] = await sealCustodyOps([result.unsealed], deps);
  return { built: built! };
}

function draft(request: BuildRequest, proofDepth: number, deps: OpBuilderDeps): Draft {
  // A wallet request's record (Safe requests are relayer transactions, never UserOperations).
  const { tx, deployed } = request;
  const scheme = request.scheme ?? "ownerSignature";
  const type = tx.accountType;
  if (scheme === "custodyRoot" && !deps.custodyPaymaster) throw new Error("CONTRACT_CUSTODY_PAYMASTER is not set");
  // A new kernel wallet on current code is created by the creator (same address: CREATE2 runs in the factory).
  const factory = scheme === "custodyRoot" && type === "kernel" ? (deps.walletCreator ?? "") : deps.factories[type];
  if (!deployed && factory === "") throw new Error("CONTRACT_KERNEL_CREATOR is not set");
  const initCode = deployed
    ? "0x"
    : packInitCode(factory, createAccountCallData(walletSalt(type, parseUserId(tx.userId))));
  const base = {
    sender: tx.sender,
    nonce: requestNonce(tx.id),
    initCode,
    callData: walletCallData(type, tx.calls, tx.delegatecall),
  };
  const pvg =
    scheme === "custodyRoot"
      ? preVerificationGasBound(base, deps.custodyPaymaster!, proofDepth)
      : preVerificationGasBound(base, deps.paymaster);
  const validUntil = Math.floor(deps.clock().getTime() / 1000) + deps.sponsorshipTtlSeconds;
  return { tx, base, preVerificationGas: pvg, validUntil, scheme, proofDepth };
}

/** The most bytes a draft's operation has in handleOps's call data, with its signatures still to come. */
const worstBytes = (d: Draft): number =>
  d.scheme === "custodyRoot"
    ? operationBytes({ ...d.base, paymasterAndData: custodyWorstData(d), signature: "0x" })
    : operationBytes({ ...d.base, paymasterAndData: WORST_PAYMASTER_AND_DATA, signature: WORST_SIGNATURE });

/** A custodial 2.1 draft's largest paymasterAndData (its proof as deep as its build's tree may be). */
const custodyWorstData = (d: Draft): string =>
  placeholderCustodyData(
    { paymaster: `0x${"ff".repeat(20)}`, verificationGasLimit: 0n, postOpGasLimit: 0n, validUntil: 0, validAfter: 0 },
    d.proofDepth,
  );

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
  const validationGas = m.preOpGas - d.preVerificationGas + (d.base.initCode === "0x" ? 0n : COLD_CREATION_GAS);
  const callGasLimit = withMargin(executionGas(m, m.callLimit), CALL_GAS_MARGIN_PERCENT, CALL_GAS_MARGIN_MIN);
  if (callGasLimit > deps.maxCallGas) return callGasTooHigh(callGasLimit, deps);
  const verificationGasLimit = withMargin(validationGas, VERIFICATION_GAS_MARGIN_PERCENT, VERIFICATION_GAS_MARGIN_MIN);
  const op = {
    ...d.base,
    accountGasLimits: packAccountGasLimits(verificationGasLimit, callGasLimit),
    preVerificationGas: d.preVerificationGas + l1Gas,
    gasFees: packGasFees(fees.maxPriorityFeePerGas, fees.maxFeePerGas),
    paymasterAndData: "0x",
    signature: "0x",
  };
  const sponsorship = terms(d, PAYMASTER_VERIFICATION_GAS, deps);
  if (d.scheme === "custodyRoot") {
    const unsealed = { ...op, paymasterAndData: placeholderCustodyData(sponsorship, d.proofDepth) };
    return (
      reservationExceeded(d.tx, operationGas(unsealed)) ?? {
        unsealed: { txId: d.tx.id, tx: d.tx, op: unsealed, terms: sponsorship },
      }
    );
  }
  const signed = await signOperation(op, sponsorship, d.tx, deps);
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
