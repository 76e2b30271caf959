import { Contract, type ContractRunner, Interface, type Signer, formatEther, getAddress } from "ethers";
import type { StakePolicy } from "../../gateway/chains/stakePolicy";

/**
 * The owner-only stake functions of every contract the project stakes (account-abstraction's BasePaymaster; the
 * creator and any later paymaster keep the same three): the contract is the staked entity, so it calls the EntryPoint
 * itself, and only its owner may make it.
 */
export const STAKED_ENTITY_ABI = new Interface([
  "function owner() view returns (address)",
  "function addStake(uint32 unstakeDelaySec) payable",
  "function unlockStake()",
  "function withdrawStake(address withdrawAddress)",
]);

/** EntryPoint v0.7's view of a stake (StakeManager.getDepositInfo). */
const ENTRY_POINT_STAKE_ABI = [
  "function getDepositInfo(address account) view returns (tuple(uint256 deposit, bool staked, uint112 stake, uint32 unstakeDelaySec, uint48 withdrawTime) info)",
];

/** A contract staked at the EntryPoint through its owner: a paymaster, a factory or account creator. */
export interface StakedEntity {
  /** Its name in the deployment (`sponsorPaymaster`), which the stake command takes. */
  readonly name: string;
  readonly address: string;
}

/** An entity's deposit and stake at the EntryPoint (ERC-4337 StakeManager.DepositInfo). */
export interface StakeInfo {
  /** The deposit that pays for operations (not part of the stake). */
  readonly deposit: bigint;
  /** Locked: false once `unlockStake` ran (and before any stake). */
  readonly staked: boolean;
  readonly stake: bigint;
  readonly unstakeDelaySec: number;
  /** When an unlocked stake may be withdrawn (seconds since 1970); 0 while locked or empty. */
  readonly withdrawTime: number;
}

/** Reads an entity's deposit and stake from the EntryPoint. */
export async function readStake(runner: ContractRunner, entryPoint: string, entity: string): Promise<StakeInfo> {
  const info = await new Contract(entryPoint, ENTRY_POINT_STAKE_ABI, runner).getFunction("getDepositInfo")(entity);
  return {
    deposit: BigInt(info.deposit),
    staked: Boolean(info.staked),
    stake: BigInt(info.stake),
    unstakeDelaySec: Number(info.unstakeDelaySec),
    withdrawTime: Number(info.withdrawTime),
  };
}

/** The entity's owner, who alone may add, unlock or withdraw its stake. */
export async function entityOwner(runner: ContractRunner, entity: string): Promise<string> {
  return getAddress(String(await new Contract(entity, STAKED_ENTITY_ABI, runner).getFunction("owner")()));
}

/** Whether the stake counts as staked under `policy`: locked, at least the minimum, for at least the delay. */
export const meetsPolicy = (info: StakeInfo, policy: StakePolicy): boolean =>
  info.staked && info.stake >= policy.minimumStakeWei && info.unstakeDelaySec >= policy.unstakeDelaySeconds;

/** A stake as a reader says it: `1.5 ETH`. */
export const coinAmount = (wei: bigint, coin: string): string => `${formatEther(wei)} ${coin}`;

/** One owner-only call on an entity, ready to send or to hand to its owner. */
export interface StakeCall {
  readonly entity: StakedEntity;
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  /** `sponsorPaymaster(0x…).addStake(86400) sending 1.0 ETH`, for logs and for the owner's to-do list. */
  readonly description: string;
}

const call = (entity: StakedEntity, fn: string, args: readonly unknown[], value: bigint, shown: string): StakeCall => ({
  entity,
  to: entity.address,
  data: STAKED_ENTITY_ABI.encodeFunctionData(fn, args),
  value,
  description: `${entity.name}(${entity.address}).${fn}(${args.join(", ")})${shown}`,
});

/**
 * `addStake(unstakeDelaySec)` sending `value` wei: adds to the stake and locks it again (the EntryPoint cancels a
 * pending unlock; the delay may only grow).
 */
export const addStakeCall = (entity: StakedEntity, value: bigint, unstakeDelaySec: number, coin: string): StakeCall =>
  call(
    entity,
    "addStake",
    [unstakeDelaySec],
    value,
    value > 0n ? ` sending ${coinAmount(value, coin)} (${value} wei)` : " sending nothing (locks the stake again)",
  );

/** `unlockStake()`: starts the unstake delay; bundlers stop calling the entity staked at once. */
export const unlockStakeCall = (entity: StakedEntity): StakeCall => call(entity, "unlockStake", [], 0n, "");

/** `withdrawStake(to)`: sends the whole unlocked stake to `to` once the delay has passed. */
export const withdrawStakeCall = (entity: StakedEntity, to: string): StakeCall =>
  call(entity, "withdrawStake", [getAddress(to)], 0n, "");

/**
 * What brings the stake up to `policy`: the coin to add and the delay to lock it for (the delay never shrinks: the
 * EntryPoint refuses that), or undefined when the stake meets the policy already.
 */
export function topUpToPolicy(
  info: StakeInfo,
  policy: StakePolicy,
): { readonly value: bigint; readonly unstakeDelaySec: number } | undefined {
  if (meetsPolicy(info, policy)) return undefined;
  const value = info.stake < policy.minimumStakeWei ? policy.minimumStakeWei - info.stake : 0n;
  return { value, unstakeDelaySec: Math.max(info.unstakeDelaySec, policy.unstakeDelaySeconds) };
}

/**
 * Sends `stakeCall` when `signer` owns the entity and waits for it; otherwise sends nothing and says who must (the
 * entity refuses anyone else: BasePaymaster's `onlyOwner`).
 */
export async function sendAsOwner(
  signer: Signer,
  stakeCall: StakeCall,
): Promise<{ readonly sent: true; readonly hash: string } | { readonly sent: false; readonly owner: string }> {
  const owner = await entityOwner(signer, stakeCall.entity.address);
  if (owner !== getAddress(await signer.getAddress())) return { sent: false, owner };
  const tx = await signer.sendTransaction({ to: stakeCall.to, data: stakeCall.data, value: stakeCall.value });
  const receipt = await tx.wait();
  if (receipt?.status !== 1) throw new Error(`${stakeCall.description} reverted (${tx.hash})`);
  return { sent: true, hash: tx.hash };
}

/**
 * Stakes each entity up to `policy` from `signer`, its owner (`npm run deploy`, the local stack). An entity owned by
 * someone else is left to its owner: the call is returned among the pending admin actions. An entity whose stake is
 * unlocking is left as it is (its owner unlocked it on purpose; `npm run stake -- top-up` locks it again).
 */
export async function stakeEntities(
  signer: Signer,
  entryPoint: string,
  entities: readonly StakedEntity[],
  policy: StakePolicy,
  log: (line: string) => void = () => undefined,
): Promise<string[]> {
  const pending: string[] = [];
  for (const entity of entities) {
    const info = await readStake(signer, entryPoint, entity.address);
    if (!info.staked && info.withdrawTime > 0) {
      log(`${entity.name} stake is unlocking: left as it is (npm run stake -- top-up ${entity.name} locks it again)`);
      continue;
    }
    const topUp = topUpToPolicy(info, policy);
    if (!topUp) continue;
    const stakeCall = addStakeCall(entity, topUp.value, topUp.unstakeDelaySec, policy.coin);
    const result = await sendAsOwner(signer, stakeCall);
    if (!result.sent) pending.push(stakeCall.description);
    else {
      const stake = coinAmount(info.stake + topUp.value, policy.coin);
      log(`${entity.name} staked at the EntryPoint: ${stake}, unstake delay ${topUp.unstakeDelaySec} s`);
    }
  }
  return pending;
}
