import { type ContractRunner, getAddress } from "ethers";
import { KernelAccountCreator__factory, OwnerAccount__factory } from "../../typechain-types";

/** Where the OwnerAccount's admin sends an admin call, and whose key must sign it. */
export interface AdminRoute {
  /** The OwnerAccount itself, or the KernelAccountCreator holding its admin role. */
  readonly to: string;
  /** The call data: `data` itself, or the creator's `forward(data)`. */
  readonly data: string;
  /** The key that must send it: the OwnerAccount's owner, or the creator's (the cold admin either way). */
  readonly admin: string;
}

/**
 * How an admin call to the OwnerAccount (addSigner, removeSigner, upgradeWallets, transferWalletOwnership,
 * setDelegateCode, …) reaches it: straight from the admin key, or, once the KernelAccountCreator holds the admin role
 * (so that new wallets start on current code), through the creator's `forward`, which only the cold key may call.
 * The creator is recognised by answering `ownerAccount()` with this OwnerAccount; any other owner is a key or a
 * contract of the operator's, sent to directly.
 */
export async function adminRoute(runner: ContractRunner, ownerAccount: string, data: string): Promise<AdminRoute> {
  const owner = getAddress(await OwnerAccount__factory.connect(ownerAccount, runner).owner());
  const creator = KernelAccountCreator__factory.connect(owner, runner);
  const forwardsFor = await creator.ownerAccount().then(
    (address) => getAddress(address),
    () => undefined,
  );
  if (forwardsFor !== getAddress(ownerAccount)) return { to: ownerAccount, data, admin: owner };
  return {
    to: owner,
    data: creator.interface.encodeFunctionData("forward", [data]),
    admin: getAddress(await creator.owner()),
  };
}
