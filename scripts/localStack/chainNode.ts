import hre from "hardhat";
import { BrowserProvider } from "ethers";
import { createProvider } from "hardhat/internal/core/providers/construction";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";

/** A fresh in-process Hardhat chain served over JSON-RPC over HTTP. */
export interface ChainNode {
  readonly rpcUrl: string;
  readonly provider: BrowserProvider;
  close(): Promise<void>;
}

/** Starts a new chain (chain id 31337, Hardhat's funded dev accounts) on `host:port` (0 = any free port). */
export async function startChainNode(host: string, port: number): Promise<ChainNode> {
  const eip1193 = await createProvider(hre.config, "hardhat", hre.artifacts);
  const server = new JsonRpcServer({ hostname: host, port, provider: eip1193 });
  const { address, port: boundPort } = await server.listen();
  const rpcUrl = `http://${address.includes(":") ? `[${address}]` : address}:${boundPort}`;
  // No response cache: the stack reads state right after writing it.
  const provider = new BrowserProvider(eip1193, undefined, { cacheTimeout: -1 });
  return {
    rpcUrl,
    provider,
    close: async () => {
      provider.destroy();
      await server.close();
    },
  };
}
