import safeArtifact from "@safe-global/safe-smart-account/build/artifacts/contracts/Safe.sol/Safe.json";
import fallbackHandlerArtifact from "@safe-global/safe-smart-account/build/artifacts/contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json";
import multiSendCallOnlyArtifact from "@safe-global/safe-smart-account/build/artifacts/contracts/libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json";
import proxyFactoryArtifact from "@safe-global/safe-smart-account/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json";
import { type Signer, id } from "ethers";
import type { SafeContracts } from "../../gateway/config/safeSettings";
import { DeploymentError, deployDeterministic, ensureDeterministicDeployer } from "./deterministic";

export type { SafeContracts };

/**
 * Salt of the Safe contracts deployed through the deterministic deployment proxy. Frozen: with the
 * pinned npm build (`@safe-global/safe-smart-account@1.5.0`) it fixes their local addresses.
 */
export const SAFE_SALT = id("idwallet:safe-1.5.0");

/** Creation code of each Safe contract, from the package's own build (none takes constructor arguments). */
const CREATION_CODE: Readonly<Record<keyof SafeContracts, { readonly name: string; readonly code: string }>> = {
  singleton: { name: "Safe 1.5.0", code: safeArtifact.bytecode },
  proxyFactory: { name: "SafeProxyFactory", code: proxyFactoryArtifact.bytecode },
  fallbackHandler: { name: "CompatibilityFallbackHandler", code: fallbackHandlerArtifact.bytecode },
  multiSendCallOnly: { name: "MultiSendCallOnly", code: multiSendCallOnlyArtifact.bytecode },
};

/**
 * Deploys (or finds) the Safe 1.5.0 singleton, proxy factory, compatibility fallback handler and
 * MultiSendCallOnly through the deterministic deployment proxy with SAFE_SALT, so they sit at the
 * same addresses on every start. For local and test chains: on real chains, configure Safe's
 * canonical deployments instead.
 */
export async function deploySafeContracts(
  deployer: Signer,
  log: (line: string) => void = () => undefined,
): Promise<SafeContracts> {
  const provider = deployer.provider;
  if (!provider) throw new DeploymentError("the deployer signer has no provider");
  await ensureDeterministicDeployer(provider);
  const place = async (field: keyof SafeContracts): Promise<string> => {
    const { name, code } = CREATION_CODE[field];
    const { address, created } = await deployDeterministic(deployer, code, SAFE_SALT);
    log(`${name.padEnd(28)} ${address} ${created ? "deployed" : "already there"}`);
    return address;
  };
  // One after another: each deployment is a transaction from the same account.
  const singleton = await place("singleton");
  const proxyFactory = await place("proxyFactory");
  const fallbackHandler = await place("fallbackHandler");
  const multiSendCallOnly = await place("multiSendCallOnly");
  return { singleton, proxyFactory, fallbackHandler, multiSendCallOnly };
}
