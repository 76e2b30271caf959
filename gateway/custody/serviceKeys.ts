import type { Logger } from "pino";
import { CUSTODY_KEYS, type CustodyKey } from "../config/custodySettings";
import type { Config } from "../config/schema";
import { CustodyError } from "./custodyError";
import type { CustodySigner } from "./custodySigner";
import { type KeySigner, type SignatureLog, auditedSigner } from "./keySigner";
import { type LoadSignerOptions, loadSigner } from "./loadSigner";
import { type SignerReference, parseSignerReference } from "./signerReference";

/** The custody keys that sign transactions and EIP-1271 answers (every signature logged); the CCIP signer is apart. */
export type TransactionKey = Exclude<CustodyKey, "ccipSigner">;
const TRANSACTION_KEYS: readonly TransactionKey[] = [
  "walletSigner",
  "sponsorSigner",
  "relayer",
  "safeOperator",
  "previousSafeOperator",
];

/** The address of each transaction key the deployment has: what the API needs to know of them, without the keys. */
export type KeyAddresses = Readonly<Partial<Record<TransactionKey, string>>>;

/** The transaction keys, loaded (in the process that runs the transaction workers), each signature logged. */
export interface ServiceKeys {
  readonly signers: Readonly<Partial<Record<TransactionKey, KeySigner>>>;
  readonly addresses: KeyAddresses;
  /** Releases the keys (token sessions); signing afterwards fails. */
  close(): Promise<void>;
}

/** Where a custody key is, from its reference setting (or its raw `_KEY` setting); undefined if it has none. */
export function keyReference(config: Config, key: CustodyKey): SignerReference | undefined {
  const { reference, raw } = CUSTODY_KEYS.find((entry) => entry.key === key)!;
  const value = config.custody[key];
  const options = { pkcs11Module: config.custody.pkcs11Module };
  if (value !== undefined && value !== "env") return parseSignerReference(reference, value, options);
  const rawKey = rawKeyOf(config, key);
  return rawKey === undefined ? undefined : parseSignerReference(raw, rawKey, options);
}

function rawKeyOf(config: Config, key: CustodyKey): string | undefined {
  switch (key) {
    case "walletSigner":
      return config.walletSignerKey;
    case "sponsorSigner":
      return config.sponsorSignerKey;
    case "relayer":
      return config.relayerKey;
    case "safeOperator":
      return config.safe.operatorKey;
    case "previousSafeOperator":
      return config.safe.previousOperatorKey;
    case "ccipSigner":
      return config.ens.signerKeys[0];
  }
}

/**
 * Opens every configured transaction key (a token logged in, a keystore decrypted), each behind the signing log. Raw
 * keys a deployment serving real chains runs with (RAW_KEYS_ALLOWED) are warned about, loudly, once per key.
 */
export async function loadServiceKeys(
  config: Config,
  log: SignatureLog,
  logger: Logger,
  options: LoadSignerOptions = {},
): Promise<ServiceKeys> {
  const opened: CustodySigner[] = [];
  const signers: Partial<Record<TransactionKey, KeySigner>> = {};
  try {
    for (const key of TRANSACTION_KEYS) {
      const reference = keyReference(config, key);
      if (!reference) continue;
      if (reference.kind === "env" && config.custody.rawKeysAllowed) {
        logger.warn(
          { setting: reference.setting },
          "RAW KEY IN THE ENVIRONMENT: anyone who can read this process's environment holds it; put it in an HSM",
        );
      }
      const signer = await loadSigner(reference, options);
      opened.push(signer);
      signers[key] = auditedSigner(signer, log);
    }
  } catch (error) {
    await Promise.allSettled(opened.map((signer) => signer.close?.()));
    throw error;
  }
  const addresses = Object.fromEntries(Object.entries(signers).map(([key, signer]) => [key, signer.address]));
  return {
    signers,
    addresses,
    close: async () => void (await Promise.allSettled(opened.map((signer) => signer.close?.()))),
  };
}

/** The CCIP gateway's signer (CCIP_SIGNER, or the first of CCIP_SIGNER_KEYS), opened; undefined if none is set. */
export async function loadCcipSigner(
  config: Config,
  options: LoadSignerOptions = {},
): Promise<CustodySigner | undefined> {
  const reference = keyReference(config, "ccipSigner");
  return reference ? loadSigner(reference, options) : undefined;
}

/**
 * Throws when the CCIP signer is one of the transaction keys (the same key under two settings): every HTTP worker of a
 * cluster holds the CCIP signer, and its signatures are not logged (design §1.6, §1.8).
 */
export function checkCcipSignerApart(addresses: KeyAddresses, ccipSigner: string | undefined): void {
  const same = TRANSACTION_KEYS.find((key) => ccipSigner !== undefined && addresses[key] === ccipSigner);
  if (same === undefined) return;
  const { reference } = CUSTODY_KEYS.find((entry) => entry.key === same)!;
  throw new CustodyError(
    `CCIP_SIGNER: the CCIP signer is ${reference}'s key; give the ENS gateway a key of its own (every HTTP worker holds it, and its signatures are not logged)`,
  );
}

/** The role a transaction key serves: the previous Safe operator is the Safe operator's, while it rotates. */
const roleOf = (key: TransactionKey): TransactionKey => (key === "previousSafeOperator" ? "safeOperator" : key);

/**
 * Throws when one key serves several roles (wallet signer, sponsor signer, relayer, Safe operator), compared by
 * address, so two references to one key (two labels in an HSM, two keystore files, a raw copy) are caught too: the
 * table of docs/keys-and-custody.md holds only with a key per role, or one stolen key gives every power it merges.
 * The local chain alone (the local stack, development) is let be: nothing real is at stake there.
 */
export function checkRoleKeysApart(addresses: KeyAddresses, options: { readonly localOnly: boolean }): void {
  if (options.localOnly) return;
  const byAddress = new Map<string, TransactionKey[]>();
  for (const key of TRANSACTION_KEYS) {
    const address = addresses[key];
    if (address !== undefined) byAddress.set(address, [...(byAddress.get(address) ?? []), key]);
  }
  const shared = [...byAddress].filter(([, keys]) => new Set(keys.map(roleOf)).size > 1);
  if (shared.length === 0) return;
  const settingOf = (key: TransactionKey) => CUSTODY_KEYS.find((entry) => entry.key === key)!.reference;
  const names = (keys: TransactionKey[]) => {
    const settings = keys.map(settingOf);
    return `${settings.slice(0, -1).join(", ")} and ${settings.at(-1)!}`;
  };
  throw new CustodyError(
    `custody: ${shared.map(([address, keys]) => `${names(keys)} are one key (${address})`).join(", ")}; give each ` +
      "role a key of its own, so that a stolen key gives only what its role can (docs/keys-and-custody.md)",
  );
}
