import { type BytesLike, type Provider, type Signer, concat, getCreate2Address, keccak256 } from "ethers";

/** The deterministic deployment proxy, at this address on nearly every EVM chain. */
export const DETERMINISTIC_DEPLOYER = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

/**
 * Runtime code of the deterministic deployment proxy: calldata is `salt ‖ initCode`, it CREATE2s the
 * init code with the salt and returns the new address. Installed with hardhat_setCode on local chains.
 */
export const DETERMINISTIC_DEPLOYER_CODE =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** Chain ids of development chains whose node accepts hardhat_setCode. */
const LOCAL_CHAIN_IDS = new Set([31337n, 1337n]);

/** Thrown when a deterministic deployment cannot proceed or lands somewhere unexpected. */
export class DeploymentError extends Error {
  override readonly name = "DeploymentError";
}

/** Where the proxy puts `initCode` deployed with `salt`. */
export const deterministicAddress = (initCode: BytesLike, salt: BytesLike): string =>
  getCreate2Address(DETERMINISTIC_DEPLOYER, salt, keccak256(initCode));

/** Makes sure the deployment proxy exists: installs it on a local chain, fails with advice elsewhere. */
export async function ensureDeterministicDeployer(provider: Provider & { send?: unknown }): Promise<void> {
  if ((await provider.getCode(DETERMINISTIC_DEPLOYER)) !== "0x") return;
  const { chainId } = await provider.getNetwork();
  const send = (provider as { send?: (method: string, params: unknown[]) => Promise<unknown> }).send;
  if (!LOCAL_CHAIN_IDS.has(chainId) || typeof send !== "function") {
    throw new DeploymentError(
      `chain ${chainId} has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER}; ` +
        "deploy it with its published keyless transaction first",
    );
  }
  await send.call(provider, "hardhat_setCode", [DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE]);
}

/** Outcome of one deterministic deployment. */
export interface DeterministicResult {
  readonly address: string;
  /** False when the contract was already there and nothing was sent. */
  readonly created: boolean;
}

/**
 * Deploys `initCode` through the proxy with `salt`, unless code already sits at the predicted address,
 * and checks that it landed exactly there.
 */
export async function deployDeterministic(
  signer: Signer,
  initCode: BytesLike,
  salt: BytesLike,
): Promise<DeterministicResult> {
  const provider = signer.provider;
  if (!provider) throw new DeploymentError("the deployer signer has no provider");
  const address = deterministicAddress(initCode, salt);
  if ((await provider.getCode(address)) !== "0x") return { address, created: false };
  const tx = await signer.sendTransaction({ to: DETERMINISTIC_DEPLOYER, data: concat([salt, initCode]) });
  const receipt = await tx.wait();
  if (receipt?.status !== 1) throw new DeploymentError(`deployment to ${address} reverted (tx ${tx.hash})`);
  if ((await provider.getCode(address)) === "0x") {
    throw new DeploymentError(`deployment transaction ${tx.hash} left no code at ${address}`);
  }
  return { address, created: true };
}
