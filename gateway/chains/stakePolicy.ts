import { parseEther } from "ethers";
import { chainById } from "./registry";

/**
 * The stake a bundler enforcing ERC-7562 asks of a paymaster or factory that reads its own storage (STO-031) before
 * it calls the entity staked, on one chain: at least `minimumStakeWei` locked at the EntryPoint with an unstake delay
 * of at least `unstakeDelaySeconds` (ERC-7562 "Staked Entity", MIN_STAKE_VALUE and MIN_UNSTAKE_DELAY).
 */
export interface StakePolicy {
  /** The chain's native coin, for messages (the stake is paid in it). */
  readonly coin: string;
  /** MIN_STAKE_VALUE for this chain, in wei of its native coin. */
  readonly minimumStakeWei: bigint;
  /** MIN_UNSTAKE_DELAY: how long a stake stays locked after `unlockStake`, in seconds. */
  readonly unstakeDelaySeconds: number;
  /** Why this amount (the docs and the `npm run stake` command show it). */
  readonly basis: string;
}

/** ERC-7562's MIN_UNSTAKE_DELAY: one day. */
export const ERC7562_MIN_UNSTAKE_DELAY_SECONDS = 86_400;

/**
 * What the reference bundlers require unless their operator says otherwise: 1e18 wei, one coin of the chain (the
 * eth-infinitism bundler's MIN_STAKE_VALUE, Rundler's `--min_stake_value`, Alto's `--min-entity-stake 1`, counted in
 * units of 1e18). No chain's minimum goes below it.
 */
export const REFERENCE_BUNDLER_MIN_STAKE_WEI = parseEther("1");

/**
 * ERC-7562 leaves MIN_STAKE_VALUE to each chain, "equivalent to ~$1000 in native tokens"; the reference bundlers
 * default to one coin. A chain's minimum is the larger of the two, rounded up, at the coin's price written beside it
 * (re-check it when the coin's price moves far: a bundler's operator may raise its minimum with it, and
 * `npm run stake -- top-up --amount` adds more). Testnets: one coin (their coins are worth nothing; one coin is what
 * the reference bundlers ask by default). The local chain: one coin too (its dev accounts hold 10,000), so a bundler
 * started with its defaults accepts the stack's operations, and a one-minute delay, so unlocking and withdrawing can
 * be tried at once (a local bundler must then be told `--min-entity-unstake-delay 60` or less).
 */
const policy = (coin: string, stake: string, basis: string, unstakeDelaySeconds = ERC7562_MIN_UNSTAKE_DELAY_SECONDS) =>
  Object.freeze({ coin, minimumStakeWei: parseEther(stake), unstakeDelaySeconds, basis });

const ETH_COIN = policy("ETH", "1", "one coin, the bundlers' default; above ~$1000 at ETH ≈ $2,500");
const TEST_COIN = (coin: string) => policy(coin, "1", "one coin, the bundlers' default (a testnet)");

/** The staking policy of every chain of the registry (chains/registry.ts), by ERC-3770 short name. */
export const STAKE_POLICIES: Readonly<Record<string, StakePolicy>> = Object.freeze({
  matic: policy("POL", "4000", "~$1000 at POL ≈ $0.25 (one coin is far less)"),
  arb1: ETH_COIN,
  linea: ETH_COIN,
  base: ETH_COIN,
  gno: policy("xDAI", "1000", "~$1000 at xDAI = $1 (one coin is far less)"),
  bnb: policy("BNB", "2", "~$1000 at BNB ≈ $600, rounded up (one coin is less)"),
  "zora-mainnet": ETH_COIN,
  eth: ETH_COIN,
  oeth: ETH_COIN,
  maticmum: TEST_COIN("MATIC"),
  ogor: TEST_COIN("ETH"),
  "arb-goerli": TEST_COIN("ETH"),
  chi: TEST_COIN("xDAI"),
  "linea-testnet": TEST_COIN("ETH"),
  "zora-goerli": TEST_COIN("ETH"),
  gor: TEST_COIN("ETH"),
  sep: TEST_COIN("ETH"),
  basesep: TEST_COIN("ETH"),
  opsep: TEST_COIN("ETH"),
  "arb-sep": TEST_COIN("ETH"),
  "linea-sepolia": TEST_COIN("ETH"),
  polygonamoy: TEST_COIN("POL"),
  zsep: TEST_COIN("ETH"),
  bnbt: TEST_COIN("BNB"),
  localhost: policy("ETH", "1", "the local chain: one coin, the bundlers' default; a one-minute delay", 60),
});

const byName = new Map(Object.entries(STAKE_POLICIES));

/** The staking policy of the chain with this short name, or undefined for a chain the registry does not know. */
export const stakePolicyOf = (chainName: string): StakePolicy | undefined => byName.get(chainName);

/** The staking policy of the chain with this EIP-155 id (31337, Hardhat's and anvil's, is the local chain). */
export const stakePolicyByChainId = (chainId: number | bigint): StakePolicy | undefined => {
  const chain = chainById(Number(chainId));
  return chain ? stakePolicyOf(chain.name) : undefined;
};
