import { type Provider, type Signer, getAddress } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { type AccountType, deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { KernelAccount__factory, OwnerAccount__factory } from "../../typechain-types";
import { DeploymentError } from "./deterministic";
import { adminRoute } from "./ownerAccountAdmin";

/** ERC-1967 implementation slot, which an ERC-1822 implementation names as its `proxiableUUID`. */
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";

/** What to move where. */
export interface WalletUpgradeRequest {
  readonly factory: string;
  readonly ownerAccount: string;
  readonly type: AccountType;
  /** The new implementation, already deployed on this chain. */
  readonly implementation: string;
  /** User ids whose wallets move (created first where not deployed yet). */
  readonly userIds: readonly string[];
  /** Call made on each wallet in the new implementation's context; `0x` for none. */
  readonly data?: string;
  /** Wallets per admin transaction. */
  readonly batchSize?: number;
}

/** A wallet left as it is, and why. */
export interface SkippedWallet {
  readonly userId: string;
  readonly wallet: string;
  readonly reason: "already on the implementation" | "handed to another owner";
}

/** The admin transactions that carry out a request, and the wallets they leave alone. */
export interface WalletUpgradePlan {
  readonly transactions: readonly { readonly to: string; readonly data: string; readonly userIds: string[] }[];
  readonly skipped: readonly SkippedWallet[];
  /** The key that must send them: the owner account's admin (through the KernelAccountCreator once it holds the role). */
  readonly admin: string;
}

/**
 * Checks the new implementation (ERC-1822 proxiable, same custodian as the wallets, so no wallet can be moved
 * to code that locks the operator out) and each wallet (still the custodian's, not already moved), then
 * batches `OwnerAccount.upgradeWallets` calls.
 */
export async function planWalletUpgrade(provider: Provider, request: WalletUpgradeRequest): Promise<WalletUpgradePlan> {
  const implementation = getAddress(request.implementation);
  const ownerAccount = getAddress(request.ownerAccount);
  if ((await provider.getCode(implementation)) === "0x") {
    throw new DeploymentError(`no contract at the implementation ${implementation}`);
  }
  const candidate = KernelAccount__factory.connect(implementation, provider);
  const uuid = await candidate.proxiableUUID().catch(() => undefined);
  if (uuid !== IMPLEMENTATION_SLOT) throw new DeploymentError(`${implementation} is not an ERC-1822 implementation`);
  const custodian = await candidate.custodian().catch(() => undefined);
  if (custodian !== ownerAccount) {
    throw new DeploymentError(`${implementation} names custodian ${custodian ?? "none"}, not ${ownerAccount}`);
  }

  const salts: { userId: string; salt: string }[] = [];
  const skipped: SkippedWallet[] = [];
  for (const input of request.userIds) {
    const userId = parseUserId(input);
    const wallet = deriveWalletAddress(request.factory, request.type, userId);
    if ((await provider.getCode(wallet)) !== "0x") {
      const account = KernelAccount__factory.connect(wallet, provider);
      if ((await account.owner()) !== ownerAccount) {
        skipped.push({ userId: input, wallet, reason: "handed to another owner" });
        continue;
      }
      if ((await account.implementation()) === implementation) {
        skipped.push({ userId: input, wallet, reason: "already on the implementation" });
        continue;
      }
    }
    salts.push({ userId: input, salt: walletSalt(request.type, userId) });
  }

  const owner = OwnerAccount__factory.createInterface();
  const size = request.batchSize ?? 50;
  const transactions = [];
  let admin = (await adminRoute(provider, ownerAccount, "0x")).admin;
  for (let i = 0; i < salts.length; i += size) {
    const batch = salts.slice(i, i + size);
    const data = owner.encodeFunctionData("upgradeWallets", [
      request.factory,
      batch.map((b) => b.salt),
      implementation,
      request.data ?? "0x",
    ]);
    // Straight to the owner account, or through the creator's forward once it holds the admin role.
    const route = await adminRoute(provider, ownerAccount, data);
    admin = route.admin;
    transactions.push({ to: route.to, data: route.data, userIds: batch.map((b) => b.userId) });
  }
  return { transactions, skipped, admin };
}

/** Sends a plan's transactions from the owner account's admin, one after another; returns their hashes. */
export async function sendWalletUpgrade(admin: Signer, plan: WalletUpgradePlan): Promise<string[]> {
  const hashes: string[] = [];
  for (const tx of plan.transactions) {
    const sent = await admin.sendTransaction({ to: tx.to, data: tx.data });
    const receipt = await sent.wait();
    if (receipt?.status !== 1) throw new DeploymentError(`upgrade transaction ${sent.hash} reverted`);
    hashes.push(sent.hash);
  }
  return hashes;
}
