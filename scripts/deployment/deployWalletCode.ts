import { type Signer, getAddress } from "ethers";
import {
  CustodyPaymaster__factory,
  KernelAccount21__factory,
  KernelAccountCreator__factory,
  OwnerAccount__factory,
} from "../../typechain-types";
import { creationCode } from "./creationCode";

/** The current wallet code of one chain: code 2.1, its paymaster, and the creator new wallets start on it through. */
export interface WalletCodeContracts {
  /** Authorizes (and pays for) custodial operations on 2.1: one custody root per bundle. */
  readonly custodyPaymaster: string;
  /** KernelAccount21: the code new kernel wallets start on and existing ones move to. */
  readonly kernelCurrentImplementation: string;
  /** KernelAccountCreator: the initCode factory of new kernel wallets; holds the OwnerAccount's admin role. */
  readonly kernelCreator: string;
}

/** Places a contract deterministically (deployIdwallet's `place`): its address, deployed or found. */
export type Place = (name: string, initCode: string) => Promise<string>;

/**
 * Places wallet code 2.1 deterministically after the frozen contracts: the CustodyPaymaster (owned by the admin), the
 * implementation naming it, and the creator starting new wallets on that implementation (owned by the admin).
 */
export async function placeWalletCode(
  place: Place,
  frozen: { entryPoint: string; ownerAccount: string; kernelFactory: string; admin: string },
): Promise<WalletCodeContracts> {
  const { entryPoint, ownerAccount, kernelFactory, admin } = frozen;
  const custodyPaymaster = await place(
    "CustodyPaymaster",
    creationCode(CustodyPaymaster__factory, entryPoint, ownerAccount, admin),
  );
  const kernelCurrentImplementation = await place(
    "KernelAccount 2.1.0",
    creationCode(KernelAccount21__factory, entryPoint, ownerAccount, custodyPaymaster),
  );
  const kernelCreator = await place(
    "KernelAccountCreator",
    creationCode(
      KernelAccountCreator__factory,
      ownerAccount,
      kernelFactory,
      entryPoint,
      kernelCurrentImplementation,
      admin,
    ),
  );
  return { custodyPaymaster, kernelCurrentImplementation, kernelCreator };
}

/**
 * Hands the OwnerAccount's admin role to the creator (Ownable2Step: `transferOwnership`, then the creator's
 * `forward(acceptOwnership())`), so that its permissionless `createAccount` may move each new wallet to current code.
 * Only the admin can; otherwise the steps are returned for the admin's to-do list. Nothing to do once it holds it.
 */
export async function handAdminToCreator(
  deployer: Signer,
  contracts: { ownerAccount: string; kernelCreator: string },
  log: (line: string) => void,
): Promise<string[]> {
  const ownerAccount = OwnerAccount__factory.connect(contracts.ownerAccount, deployer);
  const creator = KernelAccountCreator__factory.connect(contracts.kernelCreator, deployer);
  const owner = getAddress(await ownerAccount.owner());
  if (owner === getAddress(contracts.kernelCreator)) return [];
  const accept = ownerAccount.interface.encodeFunctionData("acceptOwnership");
  if (owner !== getAddress(await deployer.getAddress())) {
    return [
      `OwnerAccount(${contracts.ownerAccount}).transferOwnership(${contracts.kernelCreator})`,
      `KernelAccountCreator(${contracts.kernelCreator}).forward(${accept}) (acceptOwnership)`,
    ];
  }
  if (getAddress(await ownerAccount.pendingOwner()) !== getAddress(contracts.kernelCreator)) {
    await (await ownerAccount.transferOwnership(contracts.kernelCreator)).wait();
  }
  await (await creator.forward(accept)).wait();
  log(`OwnerAccount admin role held by the KernelAccountCreator (the admin forwards through it)`);
  return [];
}
