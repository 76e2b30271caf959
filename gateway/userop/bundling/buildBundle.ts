import { mapLimit } from "../mapLimit";
import type { BuiltUserOp } from "../../transactions/builtOp";
import type { WalletTxRecord } from "../../transactions/txRecord";
import type { Fees } from "../operationDraft";
import { buildUserOperations } from "../userOpBuilder";
import { type UnsealedUserOp, sealCustodyOps } from "../custodySealing";
import { planBuilds } from "./buildRequests";
import { bundledGas } from "../operationGas";
import { MAX_BUNDLE_BYTES, operationBytes } from "../operationSize";
import { currentFees } from "../../chains/fees";
import type { OperationContext } from "./operationContext";
import { bundleGasBound } from "./bundleCheck";
import { outcomeOfFailure } from "./operationOutcomes";
import type { SimulatedBundle } from "./preBroadcast";

/** Simultaneous eth_getCode lookups. */
const CODE_LOOKUP_CONCURRENCY = 16;
/** Largest bundle gas limit: under EIP-7825's per-transaction cap (2^24) and common block limits. */
export const MAX_BUNDLE_GAS = 15_000_000n;

/**
 * Builds a bundle from due wallet requests: their operations, measured by simulation and signed. Its gas limit is
 * the sum of its operations' measured limits (the EntryPoint needs each operation's limits available when it gets
 * to it; unused transaction gas is not paid for); operations past MAX_BUNDLE_GAS or the size limit stay queued for
 * the next bundle. Requests of wallets the operator's custodian does not hold, and requests whose build failed, are
 * settled here; nothing else is written, so a bundle that is not
 * sent (prepared ahead, then too old) costs nothing but the work. Undefined when no operation was built.
 */
export async function buildBundle(
  context: OperationContext,
  picked: readonly WalletTxRecord[],
  knownDeployed: Set<string>,
): Promise<{ readonly fees: Fees; readonly bundle: SimulatedBundle } | undefined> {
  const { provider } = context.chain;
  const [fees, deployed, simulatedAt] = await Promise.all([
    currentFees(provider),
    deployedWallets(context, picked, knownDeployed),
    provider.send("eth_blockNumber", []) as Promise<string>,
  ]);
  // Only wallets the custodian holds are built for (WalletCustody): a refused one is settled here, never simulated.
  const { requests, refused } = await planBuilds(context, picked, deployed);
  for (const { tx, failure } of refused) {
    await context.repository.settle(tx.id, await outcomeOfFailure(context, tx, failure));
  }
  const custodial = requests.map((r) => r.tx);
  const results = await buildUserOperations(requests, fees, context.builder);
  const chosen: (BuiltUserOp | UnsealedUserOp)[] = [];
  let bytes = 0;
  let gas = 0n;
  for (const [i, result] of results.entries()) {
    const tx = custodial[i]!;
    if ("failure" in result) {
      await context.repository.settle(tx.id, await outcomeOfFailure(context, tx, result.failure));
      continue;
    }
    const next = "built" in result ? result.built : result.unsealed;
    const userOp = "built" in result ? result.built.userOp : result.unsealed.op;
    // Past the gas cap or the size limit, an operation waits, untouched, for the next bundle.
    const size = bytes + operationBytes(userOp);
    const withIt = gas + bundledGas(userOp);
    if (chosen.length > 0 && (bundleGasBound(withIt, size) > MAX_BUNDLE_GAS || size > MAX_BUNDLE_BYTES)) continue;
    chosen.push(next);
    bytes = size;
    gas = withIt;
  }
  // The custodial 2.1 operations the bundle carries, and only those, under one root: one custody signature.
  const sealed = await sealCustodyOps(
    chosen.filter((c): c is UnsealedUserOp => "op" in c),
    context.builder,
  );
  const ops = chosen.map((c) => ("op" in c ? sealed.find((s) => s.txId === c.txId)! : c));
  if (ops.length === 0) return undefined;
  return { fees, bundle: { ops, picked: custodial, simulatedAt: Number(simulatedAt) } };
}

/** The wallets among `txs` that have code; a wallet once seen deployed is not asked about again. */
async function deployedWallets(
  context: OperationContext,
  txs: readonly WalletTxRecord[],
  knownDeployed: Set<string>,
): Promise<Set<string>> {
  const unknown = [...new Set(txs.map((tx) => tx.sender))].filter((sender) => !knownDeployed.has(sender));
  await mapLimit(unknown, CODE_LOOKUP_CONCURRENCY, async (sender) => {
    if ((await context.chain.provider.send("eth_getCode", [sender, "latest"])) !== "0x") knownDeployed.add(sender);
  });
  return knownDeployed;
}
