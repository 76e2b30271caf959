import { JsonRpcProvider, Wallet, getAddress } from "ethers";
import { envNameOf } from "../../gateway/config/load";
import { strandedBy } from "../../gateway/userop/walletSignerRotation";
import type { AuditLogRepository } from "../../gateway/custody/audit/auditLogRepository";
import type { Repositories } from "../../gateway/storage/repositories";
import type { TransactionsRepository } from "../../gateway/transactions/transactionsRepository";
import { OwnerAccount__factory } from "../../typechain-types";
import { adminRoute } from "../deployment/ownerAccountAdmin";
import { ENTRY_POINT_V07 } from "../deployment/entryPoint";
import type { AdminSettings } from "./adminSettings";
import type { KeysCommand } from "./keysArgs";
import { rotateSafeOperator } from "./safeOperatorRotation";

/** Where a key command writes: results on `out`, refusals on `err`. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** A key command that cannot be carried out as asked; nothing was sent. */
export class KeysCommandError extends Error {
  override readonly name = "KeysCommandError";
}

/** The settings of the service a key command reads: the chains' RPC URLs and the owner account. */
type KeySettings = Pick<AdminSettings, "chains" | "contracts">;

/** The chain's RPC URL, the service's (RPC_URL_<chain>). */
function rpcUrlOf(chain: string, settings: KeySettings): string {
  const rpcUrl = settings.chains[chain]?.rpcUrl;
  if (!rpcUrl) throw new KeysCommandError(`${envNameOf(["chains", chain, "rpcUrl"])} is not set`);
  return rpcUrl;
}

/** Runs one key command against the chain and the database. */
export async function runKeysCommand(
  command: KeysCommand,
  repos: Pick<Repositories, "transactions" | "safes" | "auditLog">,
  settings: KeySettings,
  env: Readonly<Record<string, string | undefined>>,
  output: Output,
  clock: () => Date,
): Promise<void> {
  const provider = new JsonRpcProvider(rpcUrlOf(command.chain, settings), undefined, { staticNetwork: true });
  try {
    if (command.kind === "rotate-safe-operator") {
      const done = await rotateSafeOperator({ provider, ...repos }, command.chain, command.previous, command.next);
      output.out(
        `${done.swapped} Safe(s) now owned by ${command.next} and recorded so; ${done.pending.length} swap(s) queued ` +
          `or in flight${done.pending.length > 0 ? " (run this again once they are included)" : ""}`,
      );
      if (done.failed.length > 0) output.err(`swaps failed again and again for: ${done.failed.join(", ")}`);
      if (done.lost.length > 0)
        output.err(`the operator owns these no more (their owners removed it): ${done.lost.join(", ")}`);
      return;
    }
    await changeWalletSigner(command, provider, repos, settings, env, output, clock);
  } finally {
    provider.destroy();
  }
}

/**
 * Rotates the owner account's signer set on one chain (docs/keys-and-custody.md): adds a new wallet signer, or
 * retires an old one once nothing in flight needs it. Wallet addresses never move: they depend on the factory and
 * the user id, not on any signer. Sends with ADMIN_PRIVATE_KEY when it is the owner account's admin; otherwise prints
 * the transaction for the admin (a cold key, a multisig) to send.
 */
async function changeWalletSigner(
  command: Extract<KeysCommand, { signer: string }>,
  provider: JsonRpcProvider,
  repos: { transactions: Pick<TransactionsRepository, "built">; auditLog: Pick<AuditLogRepository, "newestOf"> },
  settings: KeySettings,
  env: Readonly<Record<string, string | undefined>>,
  output: Output,
  clock: () => Date,
): Promise<void> {
  const configured = settings.contracts.ownerAccount;
  if (configured === undefined) throw new KeysCommandError("CONTRACT_OWNER_ACCOUNT is not set");
  const ownerAccount = getAddress(configured);
  const owner = OwnerAccount__factory.connect(ownerAccount, provider);
  const isSigner = await owner.isSigner(command.signer);
  if (command.kind === "add-wallet-signer") {
    if (isSigner) return output.out(`${command.signer} already signs for the wallets on ${command.chain}`);
  } else {
    if (!isSigner) return output.out(`${command.signer} does not sign for the wallets on ${command.chain}`);
    // A custody root (wallet code 2.1) names the chain and its EntryPoint in what the key signed.
    const rotationChain = {
      chainId: (await provider.getNetwork()).chainId,
      entryPoint: settings.contracts.entryPoint ?? ENTRY_POINT_V07,
    };
    const stranded = strandedBy(await repos.transactions.built(command.chain), command.signer, clock(), rotationChain);
    if (stranded.length > 0) {
      throw new KeysCommandError(
        `${stranded.length} request(s) in flight on ${command.chain} carry an operation ${command.signer} signed ` +
          `(${stranded.map((tx) => tx.id).join(", ")}); run the service with the new WALLET_SIGNER and retry once ` +
          "they are included or built again",
      );
    }
    // The service's wallet key is the one its latest wallet signature names. Removing it (the only signer, or the old
    // one before the restart on the new) would have every wallet refuse the service's signatures from then on.
    const latest = await repos.auditLog.newestOf(["userOperation", "custodyRoot", "eip1271"]);
    if (latest !== undefined && getAddress(latest.signer) === command.signer) {
      throw new KeysCommandError(
        `the service still signs with ${command.signer} (its latest wallet signature, audit row ${latest.seq} at ` +
          `${latest.at}); restart it with the new WALLET_SIGNER and retry once it has signed with that key`,
      );
    }
  }
  const data =
    command.kind === "add-wallet-signer"
      ? owner.interface.encodeFunctionData("addSigner", [command.signer])
      : owner.interface.encodeFunctionData("removeSigner", [command.signer]);
  // Straight to the owner account, or through the creator's forward once it holds the admin role.
  const route = await adminRoute(provider, ownerAccount, data);
  const admin = route.admin;
  const adminKey = env.ADMIN_PRIVATE_KEY;
  if (!adminKey) return output.out(`admin ${admin} must send on ${command.chain}: to ${route.to} data ${route.data}`);
  const sender = new Wallet(adminKey, provider);
  if (sender.address !== admin) {
    throw new KeysCommandError(`ADMIN_PRIVATE_KEY is ${sender.address}, not the owner account's admin ${admin}`);
  }
  const sent = await sender.sendTransaction({ to: route.to, data: route.data });
  const receipt = await sent.wait();
  if (receipt?.status !== 1) throw new KeysCommandError(`the admin transaction ${sent.hash} reverted`);
  output.out(
    command.kind === "add-wallet-signer"
      ? `${command.signer} now signs for the wallets on ${command.chain} (${sent.hash})`
      : `${command.signer} no longer signs for the wallets on ${command.chain} (${sent.hash})`,
  );
}
