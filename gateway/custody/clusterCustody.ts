import { randomUUID } from "node:crypto";
import { isAddress } from "ethers";
import { z } from "zod";
import { CUSTODY_KEYS } from "../config/custodySettings";
import type { Config } from "../config/schema";
import { formatUserId, parseUserId } from "../identity/userId";
import { deriveWalletAddress } from "../identity/walletAddress";
import type { ProcessCustody } from "./processCustody";
import type { KeyAddresses } from "./serviceKeys";
import type { WalletMessageSigner } from "./walletMessageSigner";

/** Where a cluster's primary tells its HTTP workers the transaction keys' addresses (an internal variable). */
export const CUSTODY_ADDRESSES_ENV = "IDWALLET_CUSTODY_ADDRESSES";

/** The transaction keys' settings (raw keys and references, which may carry a PIN): HTTP workers never get them. */
export const TRANSACTION_KEY_ENV: readonly string[] = CUSTODY_KEYS.filter((k) => k.key !== "ccipSigner").flatMap(
  (k) => [k.reference, k.raw],
);

/**
 * What only the primary holds: the transaction keys' settings and AUDIT_LOG_KEY, the audit log's HMAC key (a worker
 * that had it could chain rows the log's verifier takes for the custody process's).
 */
export const CUSTODY_ONLY_ENV: readonly string[] = [...TRANSACTION_KEY_ENV, "AUDIT_LOG_KEY"];

const Addresses = z
  .object({
    walletSigner: z.string().refine(isAddress),
    sponsorSigner: z.string().refine(isAddress),
    relayer: z.string().refine(isAddress),
    safeOperator: z.string().refine(isAddress),
    previousSafeOperator: z.string().refine(isAddress),
  })
  .partial()
  .strict();

/**
 * In the primary, before it forks: removes every transaction key setting and AUDIT_LOG_KEY from `env` (the workers
 * inherit it) and leaves the keys' addresses instead. The primary keeps the keys it opened; no HTTP worker can read
 * one. Returns the settings it removed.
 */
export function handOverEnvironment(env: NodeJS.ProcessEnv, addresses: KeyAddresses): string[] {
  const removed = CUSTODY_ONLY_ENV.filter((name) => env[name] !== undefined);
  for (const name of removed) delete env[name];
  env[CUSTODY_ADDRESSES_ENV] = JSON.stringify(addresses);
  return removed;
}

const SignRequest = z.object({
  type: z.literal("idwallet:sign-wallet-message"),
  id: z.string(),
  account: z.string(),
  hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  // No app id: the primary takes it from the app's bearer token, which it verifies itself.
  context: z.object({ userId: z.string(), chain: z.string().optional() }),
  token: z.string(),
});
const SignAnswer = z.object({
  type: z.literal("idwallet:wallet-message-signed"),
  id: z.string(),
  signature: z.string().optional(),
  error: z.string().optional(),
});
type SignAnswer = z.infer<typeof SignAnswer>;

/**
 * In an HTTP worker: the custody it has, which is no key. The addresses come from the primary; an EIP-1271 answer is
 * asked of the primary (`send` is `process.send`, answers arrive through `onMessage`). Refuses to start with a key
 * in its configuration: one given in CONFIG_FILE would reach every worker.
 */
export function remoteCustody(
  config: Config,
  env: NodeJS.ProcessEnv,
  channel: { send: (message: unknown) => void; onMessage: (listener: (message: unknown) => void) => void },
): ProcessCustody {
  const inConfig = [
    config.walletSignerKey && "WALLET_SIGNER_KEY",
    config.sponsorSignerKey && "SPONSOR_SIGNER_KEY",
    config.relayerKey && "RELAYER_SIGNER_KEY",
    config.safe.operatorKey && "SAFE_OPERATOR_SIGNER_KEY",
    config.safe.previousOperatorKey && "SAFE_OPERATOR_PREVIOUS_SIGNER_KEY",
    config.auditLogKey && "AUDIT_LOG_KEY",
    ...(["walletSigner", "sponsorSigner", "relayer", "safeOperator", "previousSafeOperator"] as const).map(
      (key) => config.custody[key] !== undefined && key,
    ),
  ].filter(Boolean);
  if (inConfig.length > 0) {
    throw new Error(`with WORKERS > 1, keys belong in the environment, not CONFIG_FILE: ${inConfig.join(", ")}`);
  }
  const addresses = Addresses.parse(JSON.parse(env[CUSTODY_ADDRESSES_ENV] ?? "{}"));
  const waiting = new Map<string, { resolve: (signature: string) => void; reject: (error: Error) => void }>();
  channel.onMessage((message) => {
    const answer = SignAnswer.safeParse(message);
    if (!answer.success) return;
    const pending = waiting.get(answer.data.id);
    if (!pending) return;
    waiting.delete(answer.data.id);
    if (answer.data.signature) pending.resolve(answer.data.signature);
    else pending.reject(new Error(`the primary did not sign: ${answer.data.error ?? "no reason given"}`));
  });
  const walletSigner = addresses.walletSigner;
  const walletMessages: WalletMessageSigner | undefined =
    walletSigner === undefined
      ? undefined
      : {
          address: walletSigner,
          signWalletMessage: (account, hash, { userId, chain, appToken }) =>
            new Promise<string>((resolve, reject) => {
              if (appToken === undefined) return reject(new Error("the primary signs only with the app's token"));
              const id = randomUUID();
              waiting.set(id, { resolve, reject });
              const context = { userId, ...(chain !== undefined && { chain }) };
              channel.send({ type: "idwallet:sign-wallet-message", id, account, hash, context, token: appToken });
            }),
        };
  return { addresses, walletMessages, close: async () => undefined };
}

/**
 * In the primary: answers a worker's request for an EIP-1271 signature. The wallet is derived again from the user id,
 * and only its replay-safe hash is signed, so a worker cannot have the primary sign a UserOperation or another wallet's
 * message under a user id it names; the log records that id in its canonical form. The app the row names is the one
 * of the bearer token the request came with, which `verifyApp` checks here (signature, expiry, the app still active and
 * its secret not rotated): a worker cannot put a signature on another app's account by naming it. Returns false for
 * any other message (it is someone else's).
 */
export function handleWalletMessageRequest(
  message: unknown,
  deps: {
    walletMessages: WalletMessageSigner | undefined;
    kernelFactory: string;
    /** The id of the app an app bearer token belongs to; rejects a token that is not valid or whose app may not use it. */
    verifyApp: (token: string) => Promise<string>;
    reply: (answer: SignAnswer) => void;
  },
): boolean {
  const request = SignRequest.safeParse(message);
  if (!request.success) return false;
  const { id, account, hash, context, token } = request.data;
  const answer = (fields: Pick<SignAnswer, "signature" | "error">) =>
    deps.reply({ type: "idwallet:wallet-message-signed", id, ...fields });
  const signer = deps.walletMessages;
  if (!signer) {
    answer({ error: "no wallet signer" });
    return true;
  }
  let wallet: string;
  let userId: string;
  try {
    const parsed = parseUserId(context.userId);
    wallet = deriveWalletAddress(deps.kernelFactory, "kernel", parsed);
    userId = formatUserId(parsed);
  } catch {
    answer({ error: "not a user id" });
    return true;
  }
  if (wallet.toLowerCase() !== account.toLowerCase()) {
    answer({ error: "the account is not the user id's wallet" });
    return true;
  }
  const signed = deps.verifyApp(token).then(
    // Logged under the canonical id the wallet was derived from, whatever spelling the worker sent, and the token's app.
    (appId) => signer.signWalletMessage(wallet, hash, { ...context, appId, userId }),
    (error: unknown) => {
      throw new Error(`the app token is not accepted: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  signed.then(
    (signature) => answer({ signature }),
    (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
  );
  return true;
}
