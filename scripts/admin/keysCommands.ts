import { JsonRpcProvider, Wallet, getAddress, isAddress } from "ethers";
import { strandedBy } from "../../gateway/custody/walletSignerRotation";
import type { TransactionsRepository } from "../../gateway/storage/transactionsRepository";
import { OwnerAccount__factory } from "../../typechain-types";
import type { KeysCommand } from "./keysArgs";

/** Where a key command writes: results on `out`, refusals on `err`. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** A key command that cannot be carried out as asked; nothing was sent. */
export class KeysCommandError extends Error {
  override readonly name = "KeysCommandError";
}

/** The chain's RPC URL and owner account, from the environment the service reads too. */
function chainSettings(command: KeysCommand, env: NodeJS.ProcessEnv): { rpcUrl: string; ownerAccount: string } {
  const setting = `RPC_URL_${command.chain.toUpperCase().replace(/-/g, "_")}`;
  const rpcUrl = env[setting];
  if (!rpcUrl) throw new KeysCommandError(`${setting} is not set`);
  const ownerAccount = env.CONTRACT_OWNER_ACCOUNT;
  if (!ownerAccount || !isAddress(ownerAccount)) throw new KeysCommandError("CONTRACT_OWNER_ACCOUNT is not set");
  return { rpcUrl, ownerAccount: getAddress(ownerAccount) };
}

/**
 * Rotates the owner account's signer set on one chain (README "Keys and custody"): adds a new wallet signer, or
 * retires an old one once nothing in flight needs it. Wallet addresses never move: they depend on the factory and
 * the user id, not on any signer. Sends with ADMIN_PRIVATE_KEY when it is the owner account's admin; otherwise prints
 * the transaction for the admin (a cold key, a multisig) to send.
 */
export async function runKeysCommand(
  command: KeysCommand,
  transactions: Pick<TransactionsRepository, "built">,
  env: NodeJS.ProcessEnv,
  output: Output,
  clock: () => Date,
): Promise<void> {
  const { rpcUrl, ownerAccount } = chainSettings(command, env);
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const owner = OwnerAccount__factory.connect(ownerAccount, provider);
    const isSigner = await owner.isSigner(command.signer);
    if (command.kind === "add-wallet-signer") {
      if (isSigner) return output.out(`${command.signer} already signs for the wallets on ${command.chain}`);
    } else {
      if (!isSigner) return output.out(`${command.signer} does not sign for the wallets on ${command.chain}`);
      const stranded = strandedBy(await transactions.built(command.chain), command.signer, clock());
      if (stranded.length > 0) {
        throw new KeysCommandError(
          `${stranded.length} request(s) in flight on ${command.chain} carry an operation ${command.signer} signed ` +
            `(${stranded.map((tx) => tx.id).join(", ")}); run the service with the new WALLET_SIGNER and retry once ` +
            "they are included or built again",
        );
      }
    }
    const data =
      command.kind === "add-wallet-signer"
        ? owner.interface.encodeFunctionData("addSigner", [command.signer])
        : owner.interface.encodeFunctionData("removeSigner", [command.signer]);
    const admin = await owner.owner();
    const adminKey = env.ADMIN_PRIVATE_KEY;
    if (!adminKey) return output.out(`admin ${admin} must send on ${command.chain}: to ${ownerAccount} data ${data}`);
    const sender = new Wallet(adminKey, provider);
    if (sender.address !== admin) {
      throw new KeysCommandError(`ADMIN_PRIVATE_KEY is ${sender.address}, not the owner account's admin ${admin}`);
    }
    const sent = await sender.sendTransaction({ to: ownerAccount, data });
    const receipt = await sent.wait();
    if (receipt?.status !== 1) throw new KeysCommandError(`the admin transaction ${sent.hash} reverted`);
    output.out(
      command.kind === "add-wallet-signer"
        ? `${command.signer} now signs for the wallets on ${command.chain} (${sent.hash})`
        : `${command.signer} no longer signs for the wallets on ${command.chain} (${sent.hash})`,
    );
  } finally {
    provider.destroy();
  }
}
