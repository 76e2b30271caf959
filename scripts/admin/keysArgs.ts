import { getAddress, isAddress } from "ethers";
import { chainByName } from "../../gateway/chains/registry";
import { UsageError } from "./usageError";

/** Usage lines of the key commands (part of the admin CLI's usage text). */
export const KEYS_USAGE = `  keys add-wallet-signer <chain> <address>
                                     let a new key sign for every wallet on the chain (OwnerAccount.addSigner), beside
                                     the old one: then restart the service with it as WALLET_SIGNER
  keys retire-wallet-signer <chain> <address>
                                     stop an old wallet signer key (OwnerAccount.removeSigner), refused while a request
                                     in flight on the chain carries an operation it signed. Both read RPC_URL_<CHAIN>
                                     and CONTRACT_OWNER_ACCOUNT, and send with ADMIN_PRIVATE_KEY (the owner account's
                                     admin) or print the transaction for the admin to send`;

/** One key command, validated. */
export interface KeysCommand {
  readonly kind: "add-wallet-signer" | "retire-wallet-signer";
  readonly chain: string;
  readonly signer: string;
}

/** Reads `keys <action> <chain> <address>` into a command. */
export function parseKeysCommand(action: string | undefined, rest: readonly string[]): KeysCommand {
  if (action !== "add-wallet-signer" && action !== "retire-wallet-signer") {
    throw new UsageError(
      action === undefined
        ? '"keys" needs add-wallet-signer or retire-wallet-signer'
        : `unknown command "keys ${action}"`,
    );
  }
  if (rest.length !== 2) throw new UsageError(`"keys ${action}" takes 2 argument(s), got ${rest.length}`);
  const [chain = "", signer = ""] = rest;
  if (!chainByName(chain)) throw new UsageError(`unknown chain "${chain}"`);
  if (!isAddress(signer)) throw new UsageError(`"${signer}" is not an address`);
  return { kind: action, chain, signer: getAddress(signer) };
}
