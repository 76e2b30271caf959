import { dataLength } from "ethers";
import { mapLimit } from "../mapLimit";
import type { BuiltUserOp } from "../../transactions/builtOp";
import type { WalletTxRecord } from "../../transactions/txRecord";
import { operationGas } from "../operationGas";
import { checkBundle } from "./bundleCheck";
import { outcomeOfFailure } from "./operationOutcomes";
import type { OwnTransactions } from "../../relaying/ownTransactions";
import { depositsCover, paymastersOf } from "./paymasterDeposits";
import type { OperationContext } from "./operationContext";

const CODE_LOOKUP_CONCURRENCY = 16;

/** A bundle built and simulated at block `simulatedAt`, about to be signed and broadcast. */
export interface SimulatedBundle {
  readonly ops: readonly BuiltUserOp[];
  readonly picked: readonly WalletTxRecord[];
  readonly simulatedAt: number;
}

/** What the pre-broadcast check knows of the worker's own sending. */
export interface SendingState {
  /** The worker's recent relayer transactions (the own-blocks skip). */
  readonly own: OwnTransactions;
  /** Wallets seen with code. */
  readonly knownDeployed: Set<string>;
  /** The bundle goes behind pending bundles of ours, which the chain's latest block does not show yet. */
  readonly behind: boolean;
}

/**
 * The operations of a simulated bundle to broadcast now. First, one that creates a wallet which has code by now
 * (deployed since its simulation: by an outsider, or by the calls of an operation in a bundle of ours) is left out,
 * untouched and uncharged, for the next bundle to build without initCode; it would make the EntryPoint stop at AA10.
 * Behind pending bundles of ours, every operation that creates a wallet is left out so: any operation of theirs may
 * deploy it (any app may call the factory), which no read of the latest block can see, and an AA10 reverts the whole
 * bundle at the relayer's cost. It goes in a bundle sent with nothing pending (the next block's first, at the latest).
 * Then the rest is sent as it is if its simulation still holds: the blocks since it hold only our own handleOps
 * bundles, none reverted, which cannot change these operations' validation otherwise (see `unchangedByOwnBundles`),
 * and the paymaster's deposit covers their prefunds at their real fees. Otherwise an operation whose wallet the
 * custodian no longer holds is settled and left out (stillCustodial), and the rest is run against the chain
 * (checkBundle).
 */
export async function opsToBroadcast(
  context: OperationContext,
  relayer: string,
  bundle: SimulatedBundle,
  sending: SendingState,
): Promise<BuiltUserOp[]> {
  const settled = sending.behind ? bundle.ops.filter((op) => dataLength(op.userOp.initCode) === 0) : bundle.ops;
  const ops = await withoutWalletsDeployedSince(context, settled, sending.knownDeployed);
  if (ops.length === 0) return [];
  if (await unchangedByOwnBundles(context, bundle.simulatedAt, ops, sending.own)) return ops;
  const custodial = await stillCustodial(context, ops, bundle.picked);
  if (custodial.length === 0) return [];
  return checkBundle(context, relayer, custodial, bundle.picked);
}

/**
 * `ops` without those whose wallets the custodian no longer holds (WalletCustody; one read for them all), which are
 * settled WALLET_NOT_CUSTODIAL. Only the custodian's cold admin hands a wallet over, by a transaction of its own,
 * which is a foreign block to `unchangedByOwnBundles`: so this is read only when the simulation no longer holds.
 * (Nothing in our own bundles can hand a wallet over or move its code: no operation may call the owner account or its
 * own wallet, and a custodial wallet's owner and code change only by the owner account's direct call.) An operation
 * that creates its wallet has nothing to read: the factory creates it owned by the custodian.
 */
async function stillCustodial(
  context: OperationContext,
  ops: readonly BuiltUserOp[],
  picked: readonly WalletTxRecord[],
): Promise<BuiltUserOp[]> {
  const deployed = ops.filter((op) => dataLength(op.userOp.initCode) === 0).map((op) => op.userOp.sender);
  const refused = await context.custody.notCustodial(deployed);
  if (refused.size === 0) return [...ops];
  const kept: BuiltUserOp[] = [];
  for (const op of ops) {
    const failure = refused.get(op.userOp.sender.toLowerCase());
    if (!failure) {
      kept.push(op);
      continue;
    }
    const tx = picked.find((t) => t.id === op.txId)!;
    context.logger.warn({ tx: tx.id, wallet: op.userOp.sender }, "wallet handed over since its simulation; not sent");
    await context.repository.settle(tx.id, await outcomeOfFailure(context, tx, failure));
  }
  return kept;
}

/** `ops` without those whose initCode creates a wallet that has code now (added to `knownDeployed`). */
async function withoutWalletsDeployedSince(
  context: OperationContext,
  ops: readonly BuiltUserOp[],
  knownDeployed: Set<string>,
): Promise<BuiltUserOp[]> {
  const creating = ops.filter((op) => dataLength(op.userOp.initCode) > 0);
  const deployed = new Set<string>();
  await mapLimit(creating, CODE_LOOKUP_CONCURRENCY, async (op) => {
    const code: string = await context.chain.provider.send("eth_getCode", [op.userOp.sender, "latest"]);
    if (code !== "0x") deployed.add(op.userOp.sender);
  });
  if (deployed.size === 0) return [...ops];
  for (const sender of deployed) knownDeployed.add(sender);
  context.logger.info({ wallets: [...deployed] }, "wallets deployed since their simulation; built again next bundle");
  return ops.filter((op) => !deployed.has(op.userOp.sender));
}

/**
 * Whether the simulation still holds. What one of our handleOps bundles can change for another operation's
 * validation: (1) a wallet's code: any operation's calls may call the factory, so a wallet another operation creates
 * may exist now; `withoutWalletsDeployedSince` looks at every such wallet, whatever the blocks hold; (2) the
 * paymaster's deposit, which our bundles spend: checked here against the prefunds in sum; (3) nothing else: a
 * wallet validates against its own storage and nonce, which only its own operations change (a wallet has at most one
 * operation in flight), and its custodian (the owner account: the only owner whose signatures we make) and the
 * paymaster's signers, which only the admin changes; an
 * operation's calls run inside handleOps, whose reentrancy guard keeps them from running another operation and using
 * its nonce. A Safe relay of ours runs an app's calls outside the EntryPoint, so a block holding one is checked.
 * A bundle of ours that reverted changes nothing, but the revert may come again: the blocks must hold none
 * (onlySince reads our transactions' receipts), so the next bundle is run against the chain first.
 * Sent behind pending bundles of ours (several in flight), the same holds of them, which the latest block does not
 * hold yet: they are handleOps bundles only (a Safe relay goes alone), a wallet has one operation in all of them,
 * no operation sent behind them creates a wallet (see opsToBroadcast), and what they may take from the deposit is
 * reserved by the bundler before this bundle is recorded (coveredBehind).
 */
async function unchangedByOwnBundles(
  context: OperationContext,
  simulatedAt: number,
  ops: readonly BuiltUserOp[],
  own: OwnTransactions,
): Promise<boolean> {
  const prefunds = ops.reduce((sum, op) => sum + operationPrefund(op.userOp), 0n);
  const [ownBlocks, covered] = await Promise.all([
    own.onlySince(context.chain.provider, simulatedAt, ["bundle"]),
    depositsCover(context, paymastersOf(ops.map((op) => op.userOp)), prefunds),
  ]);
  return ownBlocks && covered;
}

/** An operation's maxFeePerGas: the low 128 bits of its gasFees. */
export const maxFeeOf = (userOp: BuiltUserOp["userOp"]): bigint => BigInt(`0x${userOp.gasFees.slice(34)}`);

/** The most an operation takes from the paymaster's deposit: its gas at maxFeePerGas. */
export function operationPrefund(userOp: BuiltUserOp["userOp"]): bigint {
  // The simulation ran at 1 wei; the bundle pays maxFeePerGas at most.
  return operationGas(userOp) * maxFeeOf(userOp);
}
