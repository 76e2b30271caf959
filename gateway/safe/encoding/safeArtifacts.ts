import { Interface, type JsonFragment } from "ethers";
import safe from "@safe-global/safe-smart-account/build/artifacts/contracts/Safe.sol/Safe.json";
import safeProxyFactory from "@safe-global/safe-smart-account/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json";
import safeProxy from "@safe-global/safe-smart-account/build/artifacts/contracts/proxies/SafeProxy.sol/SafeProxy.json";
import multiSendCallOnly from "@safe-global/safe-smart-account/build/artifacts/contracts/libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json";
import compatibilityFallbackHandler from "@safe-global/safe-smart-account/build/artifacts/contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json";

/** ABI and creation code of one compiled contract. */
export interface SafeArtifact {
  readonly abi: readonly JsonFragment[];
  readonly bytecode: string;
}

const pick = ({ abi, bytecode }: SafeArtifact): SafeArtifact => Object.freeze({ abi, bytecode });

/**
 * The Safe 1.5.0 contracts as released in `@safe-global/safe-smart-account@1.5.0`: deploying this exact
 * bytecode is what makes a proxy's CREATE2 address (which hashes SafeProxy's creation code) match the
 * audited deployments.
 */
export const SAFE_ARTIFACTS = Object.freeze({
  safe: pick(safe),
  safeProxyFactory: pick(safeProxyFactory),
  safeProxy: pick(safeProxy),
  multiSendCallOnly: pick(multiSendCallOnly),
  compatibilityFallbackHandler: pick(compatibilityFallbackHandler),
});

/** The Safe singleton's interface (every proxy answers to it). */
export const safeInterface = new Interface(SAFE_ARTIFACTS.safe.abi);

/** SafeProxyFactory's interface: createProxyWithNonce and its ProxyCreation event. */
export const safeProxyFactoryInterface = new Interface(SAFE_ARTIFACTS.safeProxyFactory.abi);

/** MultiSendCallOnly's interface: multiSend(bytes). */
export const multiSendInterface = new Interface(SAFE_ARTIFACTS.multiSendCallOnly.abi);
