import { CHAINS } from "../chains/registry";

/** SLIP-44 coin type of Ether, used by ENS for Ethereum mainnet addresses. */
export const COIN_TYPE_ETH = 60n;
/** ENSIP-11/19 default EVM coin type (chain id 0): an address valid on every EVM chain. */
export const COIN_TYPE_DEFAULT_EVM = 0x80000000n;

/** ENSIP-11 coin type of an EVM chain: 0x80000000 | chainId (mainnet keeps 60). */
export const evmCoinType = (chainId: number): bigint =>
  chainId === 1 ? COIN_TYPE_ETH : COIN_TYPE_DEFAULT_EVM | BigInt(chainId);

/** Coin types answered with the wallet address: mainnet, the default EVM type, and every registry chain. */
export const WALLET_COIN_TYPES: ReadonlySet<bigint> = new Set([
  COIN_TYPE_ETH,
  COIN_TYPE_DEFAULT_EVM,
  ...CHAINS.map((c) => evmCoinType(c.chainId)),
]);

/** Chains whose own ENSIP-11 coin type is answered: every registry chain but Ethereum mainnet (coin type 60). */
export const WALLET_CHAIN_IDS: readonly number[] = [...WALLET_COIN_TYPES]
  .filter((coinType) => coinType > COIN_TYPE_DEFAULT_EVM)
  .map((coinType) => Number(coinType - COIN_TYPE_DEFAULT_EVM));
