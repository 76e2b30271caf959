import { ethers } from "hardhat";
import { type JsonRpcProvider, type Signer, parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { type AccountType, deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { packInitCode } from "../../gateway/userop/packedUserOperation";
import type { OpBuilderDeps } from "../../gateway/userop/userOpBuilder";
import { devKey } from "../../scripts/localStack/devKeys";
import { testKeySigner } from "./keySigners";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { ENTRY_POINT_ARTIFACT } from "../../scripts/deployment/entryPoint";
import {
  KernelAccountFactory__factory,
  LegacyBaseAccountFactory__factory,
  OwnerAccount__factory,
  SponsorPaymaster__factory,
} from "../../typechain-types";

/**
 * Deploys the idwallet contracts on the in-process Hardhat chain exactly as the deploy script does:
 * signer 0 is the admin, signer 1 the operator's wallet key, signer 2 the sponsorship key.
 */
export async function deployIdwalletFixture(fresh?: { admin: Signer & { address: string } }) {
  const [signer0, walletKey, sponsorKey, alice, bob, stranger] = await ethers.getSigners();
  // Another admin is another OwnerAccount, so other contracts: a deployment of its own on the shared chain.
  const admin = fresh?.admin ?? signer0!;
  const deployment = await deployIdwallet(admin, {
    admin: admin.address,
    walletSigners: [walletKey!.address],
    sponsorSigners: [sponsorKey!.address],
    paymasterDeposit: parseEther("10"),
  });
  const c = deployment.contracts;
  return {
    deployment,
    chainId: BigInt(deployment.chainId),
    admin,
    walletKey: walletKey!,
    sponsorKey: sponsorKey!,
    alice: alice!,
    bob: bob!,
    stranger: stranger!,
    entryPoint: new ethers.Contract(c.entryPoint, ENTRY_POINT_ARTIFACT.abi, admin),
    ownerAccount: OwnerAccount__factory.connect(c.ownerAccount, admin),
    kernelFactory: KernelAccountFactory__factory.connect(c.kernelFactory, admin),
    baseFactory: LegacyBaseAccountFactory__factory.connect(c.baseFactory, admin),
    paymaster: SponsorPaymaster__factory.connect(c.sponsorPaymaster, admin),
  };
}

/** Deploys the test-only tokens and call target. */
export async function deployTestContracts() {
  const [token, nft, multi, target] = await Promise.all([
    ethers.deployContract("TestToken"),
    ethers.deployContract("TestNFT"),
    ethers.deployContract("TestMultiToken"),
    ethers.deployContract("TestTarget"),
  ]);
  return { token, nft, multi, target };
}

/** A user id's not-yet-deployed wallet: its address and the initCode that deploys it through `factory`. */
export function counterfactualWallet(factory: string, type: AccountType, userIdInput: string) {
  const userId = parseUserId(userIdInput);
  const salt = walletSalt(type, userId);
  const factoryData = KernelAccountFactory__factory.createInterface().encodeFunctionData("createAccount", [salt]);
  return {
    userId,
    salt,
    wallet: deriveWalletAddress(factory, type, userId),
    initCode: packInitCode(factory, factoryData),
  };
}

/**
 * What building operations needs on Hardhat's chain with `deployed` (deployIdwalletFixture): the deployment's
 * contracts, dev keys 1 and 2 as wallet and sponsor signers, and the service's usual limits, for `chain`.
 */
export function opBuilderDeps(
  deployed: Awaited<ReturnType<typeof deployIdwalletFixture>>,
  chain: string,
): OpBuilderDeps {
  const c = deployed.deployment.contracts;
  return {
    // Hardhat's provider answers `send` like a JSON-RPC provider.
    provider: ethers.provider as unknown as JsonRpcProvider,
    chain,
    chainId: deployed.chainId,
    entryPoint: c.entryPoint,
    factories: { kernel: c.kernelFactory, base: c.baseFactory },
    paymaster: c.sponsorPaymaster,
    walletSigner: testKeySigner(devKey(1)),
    sponsorSigner: testKeySigner(devKey(2)),
    sponsorshipTtlSeconds: 600,
    maxCallGas: 5_000_000n,
    maxPreVerificationGas: 1_000_000n,
    clock: () => new Date(),
  };
}
