import { z } from "zod";
import { chainByName } from "../chains/registry";
import { parsePkcs11Uri } from "./pkcs11Uri";
import { flag } from "./settingTypes";

/**
 * Where one custody key is: `pkcs11:token=…;object=…?…` (RFC 7512: a key in an HSM), `keystore:<path>?password-file=…`
 * (an encrypted Web3 Secret Storage file), or `env` (the raw key in the setting's `_KEY` variable; development only).
 * Parsed fully when the key is loaded (custody/serviceKeys.ts); checked here for its scheme.
 */
export const KeyReferenceSetting = z
  .string()
  .trim()
  .refine(
    (v) => v === "env" || v.startsWith("pkcs11:") || v.startsWith("keystore:"),
    "pkcs11:<RFC 7512 URI>, keystore:<path>?password-file=<path>, or env",
  );

/** The custody keys' references and how raw keys are treated (docs/keys-and-custody.md). */
export const CustodySettings = z
  .object({
    /** WALLET_SIGNER: the owner account's signer, which signs every wallet's operations and EIP-1271 answers. */
    walletSigner: KeyReferenceSetting.optional(),
    /** SPONSOR_SIGNER: a SponsorPaymaster signer. */
    sponsorSigner: KeyReferenceSetting.optional(),
    /** RELAYER_SIGNER: the built-in bundler's sender. */
    relayer: KeyReferenceSetting.optional(),
    /** SAFE_OPERATOR_SIGNER: the operator's owner key on every Safe the service creates. */
    safeOperator: KeyReferenceSetting.optional(),
    /** SAFE_OPERATOR_PREVIOUS_SIGNER: while rotating the operator, the key being replaced (docs/keys-and-custody.md). */
    previousSafeOperator: KeyReferenceSetting.optional(),
    /** CCIP_SIGNER: signs the ENS gateway's answers (the only key HTTP worker processes hold). */
    ccipSigner: KeyReferenceSetting.optional(),
    /** PKCS11_MODULE: the PKCS#11 library a `pkcs11:` reference without module-path loads. */
    pkcs11Module: z.string().min(1).optional(),
    /** RAW_KEYS_ALLOWED: raw keys in the environment on a deployment that serves real chains (warned about). */
    rawKeysAllowed: flag.default(false),
  })
  .prefault({});
/** See {@link CustodySettings}. */
export type CustodySettings = z.infer<typeof CustodySettings>;

/** Each custody key's reference setting, its raw-key setting, and where both sit in the configuration. */
export const CUSTODY_KEYS = [
  { key: "walletSigner", reference: "WALLET_SIGNER", raw: "WALLET_SIGNER_KEY", rawPath: ["walletSignerKey"] },
  { key: "sponsorSigner", reference: "SPONSOR_SIGNER", raw: "SPONSOR_SIGNER_KEY", rawPath: ["sponsorSignerKey"] },
  { key: "relayer", reference: "RELAYER_SIGNER", raw: "RELAYER_SIGNER_KEY", rawPath: ["relayerKey"] },
  {
    key: "safeOperator",
    reference: "SAFE_OPERATOR_SIGNER",
    raw: "SAFE_OPERATOR_SIGNER_KEY",
    rawPath: ["safe", "operatorKey"],
  },
  {
    key: "previousSafeOperator",
    reference: "SAFE_OPERATOR_PREVIOUS_SIGNER",
    raw: "SAFE_OPERATOR_PREVIOUS_SIGNER_KEY",
    rawPath: ["safe", "previousOperatorKey"],
  },
  { key: "ccipSigner", reference: "CCIP_SIGNER", raw: "CCIP_SIGNER_KEYS", rawPath: ["ens", "signerKeys"] },
] as const;
/** A custody key of the service. */
export type CustodyKey = (typeof CUSTODY_KEYS)[number]["key"];

/** What the key checks read of the configuration. */
interface KeySettings {
  readonly custody: CustodySettings;
  /** Whether AUDIT_LOG_KEY is set. */
  readonly auditLogKey: boolean;
  readonly testDeployment: boolean;
  /** Service processes (WORKERS): above 1, HTTP workers hold the CCIP signer and no other key. */
  readonly workers: number;
  /** Whether only local chains are configured (the local stack). */
  readonly localOnly: boolean;
  /** The raw key of each custody key, if its `_KEY` setting is set. */
  readonly raw: Readonly<Record<CustodyKey, string | undefined>>;
}

/**
 * Problems of the key settings, each with the setting it names: a reference and a raw key for one key (the raw key
 * would still sit in the environment beside the HSM's), `env` without its raw key, raw keys on a deployment that
 * serves real chains, unless it is a test deployment or RAW_KEYS_ALLOWED says the operator knows, and a transaction
 * key on such a deployment without AUDIT_LOG_KEY (docs/keys-and-custody.md, "The signing log's key").
 */
export function keySettingProblems(settings: KeySettings): { path: readonly string[]; message: string }[] {
  const problems: { path: readonly string[]; message: string }[] = [];
  const rawInUse: { name: string; path: readonly string[] }[] = [];
  for (const { key, reference, raw, rawPath } of CUSTODY_KEYS) {
    const value = settings.custody[key];
    const rawKey = settings.raw[key];
    if (value !== undefined && value !== "env" && rawKey !== undefined) {
      problems.push({
        path: rawPath,
        message: `${reference} names a key in custody; remove ${raw} from the environment, where it is a copy anyone who reads it holds`,
      });
    }
    if (value === "env" && rawKey === undefined)
      problems.push({ path: rawPath, message: `${reference}=env needs ${raw}` });
    if ((value === undefined || value === "env") && rawKey !== undefined) rawInUse.push({ name: raw, path: rawPath });
  }
  const ccipToken = pkcs11Token(settings.custody.ccipSigner, settings.custody.pkcs11Module);
  const sharing = CUSTODY_KEYS.find(
    ({ key }) =>
      key !== "ccipSigner" && pkcs11Token(settings.custody[key], settings.custody.pkcs11Module) === ccipToken,
  );
  if (settings.workers > 1 && ccipToken !== undefined && sharing !== undefined) {
    // PKCS#11 login is per token: the PIN an HTTP worker logs in to the CCIP signer's token with opens every key on it.
    problems.push({
      path: ["custody", "ccipSigner"],
      message: `with WORKERS > 1, put the CCIP signer on a token of its own: every HTTP worker logs in to its token, which holds ${sharing.reference}'s key too`,
    });
  }
  const transactionKey = CUSTODY_KEYS.find(
    ({ key }) => key !== "ccipSigner" && (settings.custody[key] !== undefined || settings.raw[key] !== undefined),
  );
  if (transactionKey && !settings.auditLogKey && !settings.localOnly && !settings.testDeployment) {
    // Without it the audit log is a plain hash chain, which whoever can write the database recomputes at will.
    problems.push({
      path: ["auditLogKey"],
      message: `${transactionKey.reference} signs for real chains: set AUDIT_LOG_KEY (32 random bytes, 64 hex digits or base64), the key the signature audit log is chained with, so a rewrite of the log by whoever holds the database shows in audit verify`,
    });
  }
  if (rawInUse.length > 0 && !settings.localOnly && !settings.testDeployment && !settings.custody.rawKeysAllowed) {
    problems.push({
      path: rawInUse[0]!.path,
      message: `raw keys in the environment (${rawInUse.map((r) => r.name).join(", ")}) are for development: put them in an HSM (pkcs11:) or a keystore, or set RAW_KEYS_ALLOWED=true to run with them anyway`,
    });
  }
  return problems;
}

/** The PKCS#11 module and token label a `pkcs11:` reference names, as one string; undefined for any other reference. */
function pkcs11Token(reference: string | undefined, defaultModule: string | undefined): string | undefined {
  const parsed = reference === undefined ? undefined : parsePkcs11Uri(reference);
  if (!parsed?.ok) return undefined;
  return JSON.stringify([parsed.uri.query.get("module-path") ?? defaultModule, parsed.uri.path.get("token")]);
}

/**
 * Whether the deployment serves the local chain only (the local stack, development). Not one without chains: its
 * EIP-1271 answers (no chain named) and ENS answers hold on real chains.
 */
export function servesLocalChainOnly(chains: Readonly<Record<string, unknown>>): boolean {
  const names = Object.keys(chains);
  return names.length > 0 && names.every((name) => chainByName(name)?.type === "local");
}
