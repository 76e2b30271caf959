import { type BytesLike, type Provider, type Signer, concat, getCreate2Address, keccak256 } from "ethers";

/** The deterministic deployment proxy, at this address on nearly every EVM chain. */
export const DETERMINISTIC_DEPLOYER = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

/**
 * Runtime code of the deterministic deployment proxy: calldata is `salt ‖ initCode`, it CREATE2s the
 * init code with the salt and returns the new address. Installed with hardhat_setCode on local chains.
 */
export const DETERMINISTIC_DEPLOYER_CODE =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** Development nodes (by web3_clientVersion) that accept hardhat_setCode. */
const DEV_NODE = /^(HardhatNetwork|anvil)\b/i;

type RpcProvider = Provider & { send(method: string, params: unknown[]): Promise<unknown> };

/** Thrown when a deterministic deployment cannot proceed or lands somewhere unexpected. */
export class DeploymentError extends Error {
  override readonly name = "DeploymentError";
}

/** Where the proxy puts `initCode` deployed with `salt`. */
export const deterministicAddress = (initCode: BytesLike, salt: BytesLike): string =>
  getCreate2Address(DETERMINISTIC_DEPLOYER, salt, keccak256(initCode));

/** Makes sure the deployment proxy exists: installs it on a local chain, fails with advice elsewhere. */
export async function ensureDeterministicDeployer(provider: Provider): Promise<void> {
  if ((await provider.getCode(DETERMINISTIC_DEPLOYER)) !== "0x") return;
  if (!(await isDevelopmentNode(provider))) {
    const { chainId } = await provider.getNetwork();
    throw new DeploymentError(
      `chain ${chainId} has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER}; ` +
        "deploy it with its published keyless transaction first",
    );
  }
  await (provider as RpcProvider).send("hardhat_setCode", [DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_CODE]);
}

/** Whether the provider is a development node (Hardhat, anvil) whose state may be edited. */
async function isDevelopmentNode(provider: Provider): Promise<boolean> {
  if (typeof (provider as Partial<RpcProvider>).send !== "function") return false;
  try {
    return DEV_NODE.test(String(await (provider as RpcProvider).send("web3_clientVersion", [])));
  } catch {
    return false;
  }
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
  // Read at the receipt's block: a provider may still hold the pre-deployment answer for "latest".
  if ((await provider.getCode(address, receipt.blockNumber)) === "0x") {
    throw new DeploymentError(`deployment transaction ${tx.hash} left no code at ${address}`);
  }
  return { address, created: true };
}
