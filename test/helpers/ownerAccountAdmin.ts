import type { Signer, TransactionResponse } from "ethers";
import { adminRoute } from "../../scripts/deployment/ownerAccountAdmin";
import { OwnerAccount__factory } from "../../typechain-types";

const owner = OwnerAccount__factory.createInterface();

/**
 * The OwnerAccount's admin calls as the cold key sends them: straight to it, or through the KernelAccountCreator once
 * that holds the admin role (as after `npm run deploy` and on the local stack).
 */
export function ownerAccountAdmin(admin: Signer, ownerAccount: string) {
  const send = async (data: string): Promise<TransactionResponse> => {
    const route = await adminRoute(admin, ownerAccount, data);
    return admin.sendTransaction({ to: route.to, data: route.data });
  };
  return {
    transferWalletOwnership: (factory: string, salt: string, newOwner: string) =>
      send(owner.encodeFunctionData("transferWalletOwnership", [factory, salt, newOwner])),
    addSigner: (signer: string) => send(owner.encodeFunctionData("addSigner", [signer])),
    removeSigner: (signer: string) => send(owner.encodeFunctionData("removeSigner", [signer])),
    setDelegateCode: (codeHash: string, allowed: boolean) =>
      send(owner.encodeFunctionData("setDelegateCode", [codeHash, allowed])),
    upgradeWallets: (factory: string, salts: readonly string[], implementation: string, data = "0x") =>
      send(owner.encodeFunctionData("upgradeWallets", [factory, [...salts], implementation, data])),
  };
}
