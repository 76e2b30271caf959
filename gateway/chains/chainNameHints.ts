import type { ChainInfo } from "./registry";

/**
 * Names people write for a chain, by the ERC-3770 short name the registry knows it by (chainid.network's
 * `shortName`). A hint only: the short name is used when the registry has it, so a name of a chain not listed
 * suggests nothing.
 */
const COMMON_NAMES: Readonly<Record<string, readonly string[]>> = {
  eth: ["ethereum", "mainnet", "ethereum-mainnet", "homestead"],
  matic: ["polygon", "polygon-pos", "polygon-mainnet"],
  arb1: ["arbitrum", "arbitrum-one", "arbitrum-mainnet"],
  oeth: ["optimism", "op", "op-mainnet", "optimism-mainnet"],
  base: ["base-mainnet"],
  bnb: ["bsc", "binance", "bnb-smart-chain"],
  gno: ["gnosis", "xdai", "gnosis-chain"],
  linea: ["linea-mainnet"],
  "zora-mainnet": ["zora"],
  localhost: ["hardhat", "anvil", "local", "ganache", "127.0.0.1"],
  sep: ["sepolia", "ethereum-sepolia"],
  basesep: ["base-sepolia"],
  opsep: ["op-sepolia", "optimism-sepolia"],
  "arb-sep": ["arbitrum-sepolia", "arb-sepolia"],
  polygonamoy: ["amoy", "polygon-amoy"],
  gor: ["goerli"],
  maticmum: ["mumbai", "polygon-mumbai"],
};

const BY_COMMON_NAME: ReadonlyMap<string, string> = new Map(
  Object.entries(COMMON_NAMES).flatMap(([shortName, names]) => names.map((name) => [name, shortName] as const)),
);

/** The chain a name that is no short name most likely means, and whether by its chain id or by another name. */
export interface ChainMeant {
  readonly chain: ChainInfo;
  readonly by: "chain id" | "name";
}

/**
 * The chain of `chains` a name that is no short name most likely means: a chain id (`31337`, `0x7a69`, CAIP-2
 * `eip155:31337`), a common name (`ethereum`, `hardhat`), or a short name in another case (`ETH`); undefined if none.
 */
export function chainMeant(name: string, chains: readonly ChainInfo[]): ChainMeant | undefined {
  const written = name.trim().toLowerCase();
  const id = /^(?:eip155:)?(\d{1,15})$/.exec(written)?.[1] ?? /^0x[0-9a-f]{1,13}$/.exec(written)?.[0];
  if (id !== undefined) {
    const chain = chains.find((known) => known.chainId === Number(id));
    return chain && { chain, by: "chain id" };
  }
  const shortName = BY_COMMON_NAME.get(written.replace(/[\s_]+/g, "-")) ?? written;
  const chain = chains.find((known) => known.name === shortName);
  return chain && { chain, by: "name" };
}
