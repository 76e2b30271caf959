import { type SafeCall, encodeExecTransaction, safeTxHash, signSafeTx } from "../encoding/safeTransaction";
import { operatorKeyOf } from "./safeOperatorKey";
import type { BuiltSafeTx } from "../../transactions/builtOp";
import type { TxError, SafeTxRecord } from "../../transactions/txRecord";
import type { TxOutcome } from "../../transactions/txOutcome";
import { retryLater } from "../../relaying/retryPolicy";
import type { WorkerContext } from "../../relaying/workerContext";
import { builtSafeTx, cancellationCall, requestCall } from "./relayedSafeTx";
import { estimateRelayGas } from "./safeRelayGas";
import { outcomeOfUsedNonce, safeNonce } from "./safeNonce";
import { safeCallRefusal } from "./safeCallRefusal";

/** A Safe request ready for the relayer: the call it sends, with its gas limit, and what it records. */
export interface SafeRelay {
  readonly to: string;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly built: BuiltSafeTx;
}

/**
 * What preparing a Safe request found: something to send; an outcome reached without sending; or, for a request
 * looked at ahead of the transaction in flight, a failure to confirm once that transaction is settled.
 */
export type SafePreparation =
  { readonly relay: SafeRelay } | { readonly outcome: TxOutcome } | { readonly later: true };

/**
 * Builds the relayer's call for a Safe request, checked against the chain first: eth_estimateGas from the relayer
 * runs the whole Safe transaction (Safe 1.5.0, safeTxGas and gasPrice 0, reverts with the inner call's revert
 * data), so a call that would fail is refused with its reason before anything is sent.
 *
 * Exactly once. A Safe transaction is signed by the operator for the Safe's current nonce, and anyone holding a
 * signed transaction can submit it until that nonce is used. So once a build was broadcast at nonce N (the
 * request's `safeNonce`): if N is used, the request is included if its own transaction at N ran (whoever sent
 * it), failed if our cancellation ran, and otherwise built again at the new nonce (nothing signed for N can run
 * any more). While N is unused, the request is never reported failed: it is sent again, or, if it can no longer
 * succeed (or is out of attempts), N is used up by a cancellation (a no-op Safe transaction at N), and the
 * request fails only once that cancellation ran.
 *
 * A custom call that could change the Safe's configuration, from an app without the grant (stored before the rule, or
 * its grant revoked since), is never signed: it fails with SAFE_CALL_NOT_ALLOWED, after using up the nonce of an
 * earlier build still open to anyone who holds it.
 */
export async function prepareSafeRelay(
  context: WorkerContext,
  tx: SafeTxRecord,
  relayer: string,
  options: { ahead: boolean },
): Promise<SafePreparation> {
  const { provider } = context.chain;
  const code = (await provider.send("eth_getCode", [tx.sender, "latest"])) as string;
  const giveUp = tx.attempts >= context.maxAttempts;
  if (tx.safeAction === "create") return prepareDeployment(context, tx, relayer, code, giveUp, options);
  if (code === "0x") {
    if (giveUp) return { outcome: failed(tx.error ?? SAFE_NOT_DEPLOYED) };
    return { outcome: retryLater(context, tx, SAFE_NOT_DEPLOYED) };
  }
  if (!context.safeOperator)
    return { outcome: failed({ code: "SAFE_NOT_CONFIGURED", message: "no SAFE_OPERATOR_SIGNER" }) };
  const operator = await operatorKeyOf(context, tx.sender);
  if (!operator) return { outcome: failed(OPERATOR_NOT_OWNER) };
  const nonce = await safeNonce(context, tx.sender);
  let live = false;
  if (tx.safeNonce !== undefined) {
    const settled = await outcomeOfUsedNonce(context, tx, nonce);
    if (settled) return { outcome: settled };
    live = BigInt(tx.safeNonce) === nonce;
  }
  const call = requestCall(tx);
  const signing = { purpose: "safeTransaction", appId: tx.appId, chain: context.chain.name } as const;
  const sign = async (safeCall: SafeCall): Promise<{ hash: string; data: string }> => {
    const hash = safeTxHash(BigInt(context.chain.chainId), tx.sender, safeCall, nonce);
    return { hash, data: encodeExecTransaction(safeCall, await signSafeTx(operator, hash, signing)) };
  };
  const refusal = await safeCallRefusal(tx, call, context.findApp, {
    current: context.safeOperator?.address,
    previous: context.previousSafeOperator?.address,
  });
  if (refusal) {
    if (!live) return { outcome: failed(refusal) };
    if (options.ahead) return { later: true };
    return cancellation(context, tx, relayer, sign, nonce, refusal);
  }
  const attempt = await sign(call);
  const gas = giveUp
    ? { failure: tx.error ?? { code: "NOT_INCLUDED", message: `not included after ${tx.attempts} attempts` } }
    : await estimateRelayGas(context, tx, { from: relayer, to: tx.sender, data: attempt.data });
  if ("limit" in gas) {
    const built = builtSafeTx(tx, attempt.hash, nonce);
    return { relay: { to: tx.sender, data: attempt.data, gasLimit: gas.limit, built } };
  }
  if (options.ahead && !giveUp) return { later: true };
  if (!live) return { outcome: failed(gas.failure) };
  return cancellation(context, tx, relayer, sign, nonce, gas.failure);
}

/** An earlier build at this nonce may still be submitted by anyone: uses the nonce up before failing with `failure`. */
async function cancellation(
  context: WorkerContext,
  tx: SafeTxRecord,
  relayer: string,
  sign: (safeCall: SafeCall) => Promise<{ hash: string; data: string }>,
  nonce: bigint,
  failure: TxError,
): Promise<SafePreparation> {
  const cancel = await sign(cancellationCall(tx.sender));
  const cancelGas = await estimateRelayGas(context, tx, { from: relayer, to: tx.sender, data: cancel.data });
  if (!("limit" in cancelGas)) return { outcome: retryLater(context, tx, failure) };
  return {
    relay: {
      to: tx.sender,
      data: cancel.data,
      gasLimit: cancelGas.limit,
      built: { ...builtSafeTx(tx, cancel.hash, nonce), error: failure },
    },
  };
}

const OPERATOR_NOT_OWNER: TxError = {
  code: "SAFE_OPERATOR_NOT_OWNER",
  message: "the operator's key is no owner of this Safe any more: its other owners removed it",
};

const SAFE_NOT_DEPLOYED: TxError = {
  code: "SAFE_NOT_DEPLOYED",
  message: "the Safe is not deployed (yet): its deployment has not been included",
};

/** The relayer's call of the proxy factory; included without sending if the Safe already has code. */
async function prepareDeployment(
  context: WorkerContext,
  tx: SafeTxRecord,
  relayer: string,
  code: string,
  giveUp: boolean,
  options: { ahead: boolean },
): Promise<SafePreparation> {
  if (code !== "0x") return { outcome: { status: "included", success: true } };
  const call = tx.calls[0]!;
  // A deployment has no signature: failing it can never be contradicted by a later run of an earlier build.
  if (giveUp) return { outcome: failed(tx.error ?? { code: "NOT_INCLUDED", message: "not deployed" }) };
  const gas = await estimateRelayGas(context, tx, { from: relayer, to: call.to, data: call.data });
  if ("limit" in gas) {
    return { relay: { to: call.to, data: call.data, gasLimit: gas.limit, built: { txId: tx.id, safeTx: undefined } } };
  }
  if (options.ahead) return { later: true };
  return { outcome: failed({ code: "SAFE_DEPLOYMENT_FAILED", message: gas.failure.message }) };
}

const failed = (error: TxError): TxOutcome => ({ status: "failed", error });
