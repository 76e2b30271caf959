/** The pieces the configuration schema is built of (config/schema.ts). */
import { z } from "zod";
import { ensNormalize } from "ethers";
import { chainByName } from "../chains/registry";
import { decodeSecretsKey } from "../crypto/secretsKeyring";
import { Address } from "../chains/evmSchemas";

/** TX_MAX_CALL_BYTES when unset (and TX_MAX_CALL_DATA_BYTES allows it). */
export const DEFAULT_MAX_CALL_BYTES = 32 * 1024;

/** Whether a domain is a dotted ENSIP-15 normalized name. */
export const isNormalizedEnsName = (name: string): boolean => {
  try {
    return name.includes(".") && ensNormalize(name) === name;
  } catch {
    return false;
  }
};

/** A boolean setting: true/false, 1/0, yes/no, on/off. */
export const flag = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"])])
  .transform((v) => (typeof v === "boolean" ? v : ["true", "1", "yes", "on"].includes(v)));
/** An integer setting within [min, max]. */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** JSON-RPC over HTTP(S): the only transport the service speaks to nodes and bundlers. */
export const HttpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

/** One configured chain connection. */
export const ChainConnectionConfig = z.object({
  rpcUrl: HttpUrl,
  bundlerUrl: HttpUrl.optional(),
  /** At most this many of our operations held by the external bundler at once (none: no limit). */
  bundlerMaxPending: int(1, 10_000).optional(),
  /** The chain's block explorer (`https://etherscan.io`): the operator console links transactions and accounts to it. */
  explorerUrl: HttpUrl.optional(),
});

/** Safe 1.5.0 contract addresses; any may be left to the global setting (gateway/config/safeSettings.ts). */
export const SafeContractsConfig = z.object({
  singleton: Address.optional(),
  proxyFactory: Address.optional(),
  fallbackHandler: Address.optional(),
  multiSendCallOnly: Address.optional(),
});

/** Safe contract addresses by chain short name; only chains of the registry that serve Safe accounts. */
export const SafeChainsConfig = z.record(z.string(), SafeContractsConfig).superRefine((chains, ctx) => {
  for (const name of Object.keys(chains)) {
    if (chainByName(name)?.safe !== true) ctx.addIssue({ code: "custom", path: [name], message: "not a Safe chain" });
  }
});

/** A 32-byte key as 64 hex digits or base64. */
export const SecretsKeyText = z
  .string()
  .refine((text) => decodeSecretsKey(text) !== undefined, "32 random bytes: 64 hex digits or base64");

/**
 * SECRETS_KEY seals secrets stored at rest (HS256 provider secrets, AES-256-GCM); SECRETS_KEY_PREVIOUS still opens
 * what the key before it sealed, while the service seals it again at start-up (docs/auth.md, "Provider secrets at rest").
 */
export const SecretsSettings = z
  .object({ key: SecretsKeyText.optional(), previousKey: SecretsKeyText.optional() })
  .refine((s) => s.previousKey === undefined || s.key !== undefined, {
    message: "needs SECRETS_KEY, the key that replaces it",
    path: ["previousKey"],
  })
  .refine((s) => s.previousKey === undefined || s.previousKey.trim() !== s.key?.trim(), {
    message: "is the same as SECRETS_KEY",
    path: ["previousKey"],
  });
