import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Signer, getAddress, isAddress } from "ethers";
import type { StakePolicy } from "../../gateway/chains/stakePolicy";
import {
  type StakeCall,
  type StakeInfo,
  type StakedEntity,
  addStakeCall,
  coinAmount,
  entityOwner,
  meetsPolicy,
  readStake,
  sendAsOwner,
  topUpToPolicy,
  unlockStakeCall,
  withdrawStakeCall,
} from "../deployment/entityStake";
import { ENTRY_POINT_V07 } from "../deployment/entryPoint";
import { type StakeRequest, StakeCommandError, contractSetting, formatDuration } from "./stakeArguments";

/** What the command works on: the signer, the chain's EntryPoint and staked contracts, the chain's policy. */
export interface StakeContext {
  readonly signer: Signer;
  readonly entryPoint: string;
  /** The deployment's staked contracts, by name; undefined: the chain has no address for it. */
  readonly addresses: Readonly<Record<string, string | undefined>>;
  readonly policy: StakePolicy;
  readonly log: (line: string) => void;
}

/**
 * The EntryPoint and each staked contract's address on `chain`: the setting (CONTRACT_ENTRY_POINT,
 * CONTRACT_SPONSOR_PAYMASTER, …) wins, else what `npm run deploy` wrote to deployments/<chain>.json.
 */
export function deploymentAddresses(
  chain: string,
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  deploymentsDir = path.join(__dirname, "..", "..", "deployments"),
): { entryPoint: string; addresses: Record<string, string | undefined> } {
  const file = path.join(deploymentsDir, `${chain}.json`);
  const deployed = existsSync(file)
    ? ((JSON.parse(readFileSync(file, "utf8")) as { contracts?: Record<string, string> }).contracts ?? {})
    : {};
  const address = (setting: string, recorded: string | undefined): string | undefined => {
    const value = env[setting] || recorded;
    if (value !== undefined && !isAddress(value)) throw new StakeCommandError(`${setting}: "${value}" is no address`);
    return value === undefined ? undefined : getAddress(value);
  };
  return {
    entryPoint: address("CONTRACT_ENTRY_POINT", deployed.entryPoint) ?? ENTRY_POINT_V07,
    addresses: Object.fromEntries(names.map((name) => [name, address(contractSetting(name), deployed[name])])),
  };
}

/** The block time the EntryPoint compares withdraw times with. */
async function chainTime(signer: Signer): Promise<number> {
  const block = await signer.provider?.getBlock("latest");
  if (!block) throw new StakeCommandError("the node returned no latest block");
  return block.timestamp;
}

/** When an unlocked stake may be withdrawn, against chain time `now`. */
const whenWithdrawable = (info: StakeInfo, now: number): string =>
  `${new Date(info.withdrawTime * 1000).toISOString()}` +
  (info.withdrawTime > now ? ` (in ${formatDuration(info.withdrawTime - now)})` : " (passed)");

const stateOf = (info: StakeInfo, now: number): string => {
  if (info.staked) return "locked";
  if (info.withdrawTime > 0) return `unlocking, withdrawable from ${whenWithdrawable(info, now)}`;
  return info.stake > 0n ? "unlocked" : "none";
};

/** The entities the request names (all the deployment's for none), each with its address and code checked. */
async function selectEntities(request: StakeRequest, context: StakeContext): Promise<StakedEntity[]> {
  const named = request.entities.length > 0;
  const selected: StakedEntity[] = [];
  for (const name of named ? request.entities : Object.keys(context.addresses)) {
    const address = context.addresses[name];
    if (!address) {
      const why = `${name}: no address on this chain (set ${contractSetting(name)}, or run npm run deploy)`;
      if (named) throw new StakeCommandError(why);
      context.log(`${why}: skipped`);
      continue;
    }
    if ((await context.signer.provider?.getCode(address)) === "0x") {
      throw new StakeCommandError(`${name}: no contract at ${address} on this chain`);
    }
    selected.push({ name, address });
  }
  return selected;
}

/** Sends a call as the entity's owner, or prints it for the owner; says which. */
async function send(stakeCall: StakeCall, context: StakeContext): Promise<boolean> {
  const result = await sendAsOwner(context.signer, stakeCall);
  if (result.sent) {
    context.log(`sent ${stakeCall.description}: ${result.hash}`);
    return true;
  }
  const signer = await context.signer.getAddress();
  context.log(`${stakeCall.entity.name} is owned by ${result.owner}, not by the signer ${signer}: nothing sent.`);
  context.log(`  the owner must send: ${stakeCall.description}`);
  context.log(`  to ${stakeCall.to} value ${stakeCall.value} data ${stakeCall.data}`);
  return false;
}

async function status(entity: StakedEntity, context: StakeContext, now: number): Promise<void> {
  const { coin, minimumStakeWei, unstakeDelaySeconds, basis } = context.policy;
  const [info, owner] = await Promise.all([
    readStake(context.signer, context.entryPoint, entity.address),
    entityOwner(context.signer, entity.address),
  ]);
  const verdict = meetsPolicy(info, context.policy) ? "met" : `NOT met: npm run stake -- top-up ${entity.name}`;
  context.log(`${entity.name} ${entity.address} (owner ${owner})`);
  context.log(`  deposit          ${coinAmount(info.deposit, coin)} (pays for the operations; not part of the stake)`);
  context.log(`  staked           ${info.staked ? "yes" : "no"}`);
  context.log(`  stake            ${coinAmount(info.stake, coin)}, ${stateOf(info, now)}`);
  context.log(`  unstake delay    ${info.unstakeDelaySec} s (${formatDuration(info.unstakeDelaySec)})`);
  context.log(`  withdraw time    ${info.withdrawTime > 0 ? whenWithdrawable(info, now) : "–"}`);
  context.log(
    `  chain minimum    ${coinAmount(minimumStakeWei, coin)}, ${unstakeDelaySeconds} s delay (${basis}): ${verdict}`,
  );
}

async function topUp(entity: StakedEntity, request: StakeRequest, context: StakeContext): Promise<void> {
  const { policy } = context;
  const info = await readStake(context.signer, context.entryPoint, entity.address);
  const plan =
    request.amountWei === undefined
      ? topUpToPolicy(info, policy)
      : { value: request.amountWei, unstakeDelaySec: Math.max(info.unstakeDelaySec, policy.unstakeDelaySeconds) };
  if (!plan) {
    context.log(`${entity.name}: ${coinAmount(info.stake, policy.coin)} staked, the chain's minimum: nothing sent`);
    return;
  }
  if (!(await send(addStakeCall(entity, plan.value, plan.unstakeDelaySec, policy.coin), context))) return;
  const after = await readStake(context.signer, context.entryPoint, entity.address);
  context.log(
    `${entity.name}: ${coinAmount(after.stake, policy.coin)} staked, locked, ${after.unstakeDelaySec} s delay`,
  );
}

/** Why an entity's stake cannot be unlocked now, or undefined when it can. */
function whyNoUnlock(entity: StakedEntity, info: StakeInfo, now: number): string | undefined {
  if (info.stake === 0n) return `${entity.name} has no stake to unlock`;
  if (!info.staked) return `${entity.name} is already unlocking: withdrawable from ${whenWithdrawable(info, now)}`;
  return undefined;
}

/** Why an entity's stake cannot be withdrawn now, or undefined when it can. */
function whyNoWithdraw(entity: StakedEntity, info: StakeInfo, now: number): string | undefined {
  if (info.stake === 0n) return `${entity.name} has no stake to withdraw`;
  if (info.staked || info.withdrawTime === 0) {
    const delay = formatDuration(info.unstakeDelaySec);
    return `${entity.name}'s stake is locked: npm run stake -- unlock ${entity.name} first, then wait its unstake delay (${delay})`;
  }
  if (info.withdrawTime > now) {
    return `${entity.name}'s stake can be withdrawn from ${whenWithdrawable(info, now)}, chain time, not before`;
  }
  return undefined;
}

/**
 * Runs one checked request of `npm run stake` on the chain of `context.signer`. unlock and withdraw check every named
 * entity before sending anything; a refusal throws StakeCommandError saying why (and when, for a withdraw too early).
 */
export async function runStake(request: StakeRequest, context: StakeContext): Promise<void> {
  const entities = await selectEntities(request, context);
  const now = await chainTime(context.signer);
  if (request.action === "status") {
    context.log(`EntryPoint ${context.entryPoint}, chain time ${new Date(now * 1000).toISOString()}`);
    for (const entity of entities) await status(entity, context, now);
    return;
  }
  if (request.action === "top-up") {
    for (const entity of entities) await topUp(entity, request, context);
    return;
  }
  const infos = await Promise.all(entities.map((e) => readStake(context.signer, context.entryPoint, e.address)));
  const check = request.action === "unlock" ? whyNoUnlock : whyNoWithdraw;
  const refusals = entities.map((entity, i) => check(entity, infos[i]!, now)).filter((why) => why !== undefined);
  if (refusals.length > 0) throw new StakeCommandError(refusals.join("\n"));
  const to = request.to ?? (await context.signer.getAddress());
  for (const [i, entity] of entities.entries()) {
    if (request.action === "unlock") {
      if (!(await send(unlockStakeCall(entity), context))) continue;
      const after = await readStake(context.signer, context.entryPoint, entity.address);
      const when = whenWithdrawable(after, await chainTime(context.signer));
      context.log(`${entity.name}: unlocked; bundlers no longer count it staked`);
      context.log(`  withdrawable from ${when}: npm run stake -- withdraw ${entity.name}`);
    } else if (await send(withdrawStakeCall(entity, to), context)) {
      context.log(`${entity.name}: withdrew ${coinAmount(infos[i]!.stake, context.policy.coin)} to ${to}`);
    }
  }
}
