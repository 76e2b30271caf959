import type { JsonRpcApiProvider } from "ethers";
import { type AnvilState, startAnvilNode } from "./anvilNode";
import { startHardhatNode } from "./hardhatNode";

/** The local chains the stack and the benches can run on. */
export const CHAIN_NODE_KINDS = ["hardhat", "anvil"] as const;
export type ChainNodeKind = (typeof CHAIN_NODE_KINDS)[number];

/** A local chain (chain id 31337, Hardhat's funded dev accounts) served over JSON-RPC over HTTP. */
export interface ChainNode {
  readonly kind: ChainNodeKind;
  readonly rpcUrl: string;
  readonly provider: JsonRpcApiProvider;
  /** The node's own process, when it runs in one (anvil); Hardhat's runs in this process. */
  readonly pid?: number;
  close(): Promise<void>;
}

/** How to start a chain: which node. */
export interface ChainNodeOptions {
  readonly kind?: ChainNodeKind;
  /** Anvil only: the state to start from and the file to save on stop (Hardhat's chain cannot be saved). */
  readonly anvilState?: AnvilState;
}

/** Starts a new chain on `host:port` (0 = any free port): Hardhat's in-process node unless `kind` says anvil. */
export function startChainNode(host: string, port: number, options: ChainNodeOptions = {}): Promise<ChainNode> {
  return options.kind === "anvil" ? startAnvilNode(host, port, options.anvilState) : startHardhatNode(host, port);
}

/** CHAIN_NODE's value as a kind: unset or empty is Hardhat. */
export function chainNodeKind(value: string | undefined): ChainNodeKind {
  if (value === undefined || value === "") return "hardhat";
  const kind = CHAIN_NODE_KINDS.find((k) => k === value);
  if (!kind) throw new Error(`CHAIN_NODE must be ${CHAIN_NODE_KINDS.join(" or ")}, not "${value}"`);
  return kind;
}
