import hre from "hardhat";
import { BrowserProvider } from "ethers";
import { createProvider } from "hardhat/internal/core/providers/construction";

/**
 * A second, independent in-process Hardhat chain with another chain id, for proving that contracts and
 * wallets land at the same addresses on every chain.
 */
export async function startSecondChain(chainId: number): Promise<BrowserProvider> {
  const config = structuredClone(hre.config);
  config.networks.hardhat = { ...config.networks.hardhat, chainId };
  const eip1193 = await createProvider(config, "hardhat", hre.artifacts);
  // No response cache: tests compare reads taken milliseconds apart.
  return new BrowserProvider(eip1193, { chainId, name: `second-${chainId}` }, { cacheTimeout: -1 });
}
