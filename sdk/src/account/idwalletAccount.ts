import type { Hex, LocalAccount } from "viem";
import { toAccount } from "viem/accounts";
import type { IdwalletClient } from "../client/createClient.js";

/** Who the account is: the user, their proof, and the chain signatures are for (plain EIP-1271 once deployed there). */
export interface IdwalletAccountOptions {
  readonly client: IdwalletClient;
  readonly userId: string;
  readonly auth: string | (() => string | Promise<string>);
  readonly chain?: string;
}

/**
 * A viem `Account` for a user's wallet: it signs messages and typed data (EIP-1271, ERC-6492 before deployment, which
 * viem's verifyMessage / verifyTypedData accept). A smart wallet has no raw transactions to sign: send through
 * `createIdwalletProvider` (eth_sendTransaction, wallet_sendCalls) instead.
 */
export async function toIdwalletAccount(options: IdwalletAccountOptions): Promise<LocalAccount> {
  const { client, userId, chain } = options;
  const [user] = await client.resolve([userId]);
  if (!user) throw new TypeError(`no wallet for ${userId}`);
  const auth = async () => (typeof options.auth === "function" ? options.auth() : options.auth);
  return toAccount({
    address: user.accountAddress as Hex,
    signMessage: async ({ message }) =>
      (await client.signMessage({ userId, auth: await auth(), chain, message })).signature as Hex,
    signTypedData: async (typedData) =>
      (await client.signTypedData({ userId, auth: await auth(), chain, typedData })).signature as Hex,
    signTransaction: async () => {
      throw new TypeError("an idwallet signs no raw transactions: send calls through createIdwalletProvider");
    },
  });
}
