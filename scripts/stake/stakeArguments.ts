import { isAddress, getAddress, parseEther } from "ethers";
import { z } from "zod";

/** What `npm run stake` can do. */
export const STAKE_ACTIONS = ["status", "top-up", "unlock", "withdraw"] as const;
export type StakeAction = (typeof STAKE_ACTIONS)[number];

/** How to call the command, shown with every refusal of its arguments. */
export const STAKE_USAGE = `usage: npm run stake -- <action> [entity…] [options] --network <chain>
  status   [entity…]                 deposit, stake, unstake delay and withdraw time at the EntryPoint (default: all)
  top-up   [entity…] [--amount <n>]  stake up to the chain's minimum (gateway/chains/stakePolicy.ts), or add <n>
                                     coins; locks an unlocking stake again
  unlock   <entity…>                 start the unstake delay: bundlers stop treating the entity as staked at once
  withdraw <entity…> [--to <addr>]   send an unlocked stake whose delay has passed to <addr> (default: the signer)
Signs with DEPLOYER_PRIVATE_KEY, which must be the entity's owner (the admin); any other key gets the transaction
printed for the owner to send. Addresses: CONTRACT_<NAME> (CONTRACT_SPONSOR_PAYMASTER, CONTRACT_ENTRY_POINT), else
deployments/<chain>.json.`;

/** The command's arguments are wrong; the message says which and how to call it. */
export class StakeCommandError extends Error {
  override readonly name = "StakeCommandError";
}

/** The arguments as Hardhat hands them over (`hardhat stake <action> [entity…] [--amount] [--to]`). */
export interface RawStakeArguments {
  readonly action?: string;
  readonly entities?: readonly string[];
  readonly amount?: string;
  readonly to?: string;
}

/** One checked request of the command. */
export interface StakeRequest {
  readonly action: StakeAction;
  /** The entities named, each once, in the order given; empty: every staked contract (status and top-up only). */
  readonly entities: readonly string[];
  /** top-up only: wei to add instead of topping up to the chain's minimum. */
  readonly amountWei?: bigint;
  /** withdraw only: where the stake goes (default: the signer). */
  readonly to?: string;
}

function refuse(message: string): never {
  throw new StakeCommandError(`npm run stake: ${message}\n${STAKE_USAGE}`);
}

/** A positive amount of coin written as a decimal (`0.5`, `4000`), in wei. */
const CoinAmount = z
  .string()
  .regex(/^\d+(\.\d{1,18})?$/, "a decimal number of coins, at most 18 decimals")
  .transform((text) => parseEther(text))
  .refine((wei) => wei > 0n, "more than zero");

/** Checks the command's arguments against the staked contracts (`known`); throws StakeCommandError naming the fault. */
export function parseStakeArguments(raw: RawStakeArguments, known: readonly string[]): StakeRequest {
  const action = STAKE_ACTIONS.find((a) => a === raw.action);
  if (!raw.action) refuse("no action given");
  if (!action) refuse(`unknown action "${raw.action}": one of ${STAKE_ACTIONS.join(", ")}`);
  const entities = [...new Set(raw.entities ?? [])];
  for (const name of entities) {
    if (!known.includes(name)) refuse(`unknown entity "${name}": the staked contracts are ${known.join(", ")}`);
  }
  if ((action === "unlock" || action === "withdraw") && entities.length === 0) {
    refuse(`${action} takes the entities by name (${known.join(", ")}): it never applies to all at once`);
  }
  if (raw.amount !== undefined && action !== "top-up") refuse("--amount goes with top-up only");
  if (raw.to !== undefined && action !== "withdraw") refuse("--to goes with withdraw only");
  const request: StakeRequest = { action, entities };
  if (raw.amount !== undefined) {
    const amount = CoinAmount.safeParse(raw.amount);
    if (!amount.success) refuse(`--amount "${raw.amount}" is not ${amount.error?.issues[0]?.message}`);
    return { ...request, amountWei: amount.data };
  }
  if (raw.to !== undefined) {
    if (!isAddress(raw.to)) refuse(`--to "${raw.to}" is not an address`);
    return { ...request, to: getAddress(raw.to) };
  }
  return request;
}

/** The setting that names an entity's address: `sponsorPaymaster` → CONTRACT_SPONSOR_PAYMASTER. */
export const contractSetting = (name: string): string =>
  `CONTRACT_${name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;

/** A duration as an operator reads it: `1 d 2 h`, `59 min 3 s`. */
export function formatDuration(seconds: number): string {
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(seconds));
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["min", 60],
  ] as const) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest} s`);
  return parts.join(" ");
}
