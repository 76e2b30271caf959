import hre from "hardhat";
import { BrowserProvider } from "ethers";
import { createProvider } from "hardhat/internal/core/providers/construction";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import type { ChainNode } from "./chainNode";

/** Starts a new in-process Hardhat chain (chain id 31337, its funded dev accounts) on `host:port` (0: a free port). */
export async function startHardhatNode(host: string, port: number): Promise<ChainNode> {
  const eip1193 = await createProvider(hre.config, "hardhat", hre.artifacts);
  const server = new JsonRpcServer({ hostname: host, port, provider: eip1193 });
  const { address, port: boundPort } = await server.listen();
  const rpcUrl = `http://${address.includes(":") ? `[${address}]` : address}:${boundPort}`;
  // No response cache: the stack reads state right after writing it.
  const provider = new BrowserProvider(eip1193, undefined, { cacheTimeout: -1 });
  return {
    kind: "hardhat",
    rpcUrl,
    provider,
    close: async () => {
      provider.destroy();
      await server.close();
    },
  };
}
