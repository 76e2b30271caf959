/** Whether a chain is a production network, a testnet, or the local development chain. */
export type ChainType = "production" | "testnet" | "local";
/** Whether idwallet's contracts are deployed on the chain (spec §4.7 "Contracts" column). */
export type ContractStatus = "deployed" | "in-construction";
/** Whether the API serves the chain (spec §4.7 "API" column). */
export type ApiStatus = "live" | "planned" | "none";

/** One network the service knows, named by its ERC-3770 short name. */
export interface ChainInfo {
  readonly name: string;
  readonly chainId: number;
  readonly type: ChainType;
  readonly contracts: ContractStatus;
  readonly api: ApiStatus;
  /** Safe-account interface served on this chain (spec §4.10). */
  readonly safe: boolean;
  /**
   * The chain charges every transaction an L1 data fee for its bytes besides its L2 gas, priced by its
   * GasPriceOracle (the OP-stack's; chains/l1DataFee.ts): operations and budgets count it (docs/transactions.md).
   */
  readonly l1DataFee: boolean;
}

/** What a chain charges beyond its L2 gas. */
type Fees = { readonly l1DataFee: boolean };
/** An OP-stack chain (Bedrock and later): an L1 data fee per transaction byte, from the GasPriceOracle predeploy. */
const OP_STACK: Fees = { l1DataFee: true };
const L2_GAS_ONLY: Fees = { l1DataFee: false };

const chain = (
  name: string,
  chainId: number,
  type: ChainType,
  contracts: ContractStatus,
  api: ApiStatus,
  safe = false,
  fees: Fees = L2_GAS_ONLY,
): ChainInfo => Object.freeze({ name, chainId, type, contracts, api, safe, ...fees });

/**
 * Every network of spec §4.7 and §4.10, then today's testnets, then the local development chain. The spec's testnets
 * (Goerli and Mumbai based) are shut down; their rows stay, as the spec names them. Today's testnets (short names and
 * chain ids from the ethereum-lists/chains registry) carry no contracts of the project: an operator deploys them
 * (`npm run deploy -- --network <name>`) and serves the chain by setting its RPC_URL_<NAME>.
 */
export const CHAINS: readonly ChainInfo[] = Object.freeze([
  chain("matic", 137, "production", "deployed", "live", true),
  chain("arb1", 42161, "production", "deployed", "live", true),
  chain("linea", 59144, "production", "deployed", "live"),
  chain("base", 8453, "production", "deployed", "live", false, OP_STACK),
  chain("gno", 100, "production", "deployed", "live"),
  chain("bnb", 56, "production", "deployed", "live"),
  chain("zora-mainnet", 7777777, "production", "deployed", "planned", false, OP_STACK),
  chain("eth", 1, "production", "deployed", "planned", true),
  chain("oeth", 10, "production", "in-construction", "none", true, OP_STACK),
  chain("maticmum", 80001, "testnet", "deployed", "live", true),
  chain("ogor", 420, "testnet", "deployed", "live", false, OP_STACK),
  chain("arb-goerli", 421613, "testnet", "deployed", "live"),
  chain("chi", 10200, "testnet", "deployed", "live"),
  chain("linea-testnet", 59140, "testnet", "deployed", "live"),
  chain("zora-goerli", 999, "testnet", "deployed", "planned", false, OP_STACK),
  chain("gor", 5, "testnet", "deployed", "none", true),
  chain("sep", 11155111, "testnet", "in-construction", "live", true),
  chain("basesep", 84532, "testnet", "in-construction", "live", false, OP_STACK),
  chain("opsep", 11155420, "testnet", "in-construction", "live", false, OP_STACK),
  chain("arb-sep", 421614, "testnet", "in-construction", "live"),
  chain("linea-sepolia", 59141, "testnet", "in-construction", "live"),
  chain("polygonamoy", 80002, "testnet", "in-construction", "live", true),
  chain("zsep", 999999999, "testnet", "in-construction", "live", false, OP_STACK),
  chain("bnbt", 97, "testnet", "in-construction", "live"),
  chain("localhost", 31337, "local", "deployed", "live", true),
]);

const byName = new Map(CHAINS.map((c) => [c.name, c]));
const byId = new Map(CHAINS.map((c) => [c.chainId, c]));

/** The chain with this ERC-3770 short name, or undefined. */
export const chainByName = (name: string): ChainInfo | undefined => byName.get(name);

/** The chain with this EIP-155 chain id, or undefined. */
export const chainById = (chainId: number): ChainInfo | undefined => byId.get(chainId);
