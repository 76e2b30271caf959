import { getAddress, isAddress } from "ethers";
import { chainByName } from "../../gateway/chains/registry";
import { UsageError } from "./usageError";

/** Usage lines of the key commands (part of the admin CLI's usage text). */
export const KEYS_USAGE = `  keys add-wallet-signer <chain> <address>
                                     let a new key sign for every wallet on the chain (OwnerAccount.addSigner), beside
                                     the old one: then restart the service with it as WALLET_SIGNER
  keys retire-wallet-signer <chain> <address>
                                     stop an old wallet signer key (OwnerAccount.removeSigner), refused while a request
                                     in flight on the chain carries an operation it signed, or while the service still
                                     signs with it (the signing log's latest wallet signature). Both read RPC_URL_<CHAIN>
                                     and CONTRACT_OWNER_ACCOUNT, and send with ADMIN_PRIVATE_KEY (the owner account's
                                     admin) or print the transaction for the admin to send
  keys rotate-safe-operator <chain> <old address> <new address>
                                     swap the operator's owner key on every Safe the service created on the chain
                                     (run the service with SAFE_OPERATOR_SIGNER the new key and
                                     SAFE_OPERATOR_PREVIOUS_SIGNER the old): queues one swapOwner Safe transaction per
                                     Safe, sent by the relayer; run it again until nothing is pending (it records the
                                     Safes swapped); reads RPC_URL_<CHAIN>`;

/** One key command, validated. */
export type KeysCommand =
  | { readonly kind: "add-wallet-signer" | "retire-wallet-signer"; readonly chain: string; readonly signer: string }
  | { readonly kind: "rotate-safe-operator"; readonly chain: string; readonly previous: string; readonly next: string };

/** Reads `keys <action> <chain> <address>` into a command. */
export function parseKeysCommand(action: string | undefined, rest: readonly string[]): KeysCommand {
  if (action !== "add-wallet-signer" && action !== "retire-wallet-signer" && action !== "rotate-safe-operator") {
    throw new UsageError(
      action === undefined
        ? '"keys" needs add-wallet-signer, retire-wallet-signer or rotate-safe-operator'
        : `unknown command "keys ${action}"`,
    );
  }
  const count = action === "rotate-safe-operator" ? 3 : 2;
  if (rest.length !== count) throw new UsageError(`"keys ${action}" takes ${count} argument(s), got ${rest.length}`);
  const [chain = "", ...addresses] = rest;
  if (!chainByName(chain)) throw new UsageError(`unknown chain "${chain}"`);
  const bad = addresses.find((address) => !isAddress(address));
  if (bad !== undefined) throw new UsageError(`"${bad}" is not an address`);
  const [first = "", second = ""] = addresses.map((address) => getAddress(address));
  if (action !== "rotate-safe-operator") return { kind: action, chain, signer: first };
  if (first === second) throw new UsageError("the old and new operator are the same address");
  return { kind: action, chain, previous: first, next: second };
}
