import { z } from "zod";
import { Address, ChainName } from "../chains/evmSchemas";

/** Gas or wei as stored and typed: a decimal string of at most 30 digits, read as a bigint. */
const Amount = z
  .string()
  .regex(/^\d{1,30}$/, "a whole number")
  .transform((v) => BigInt(v));

/** A request rate: `requests` per window of `perSeconds` (1: per second, 60: per minute). */
export const RateLimit = z.object({
  requests: z.number().int().min(1).max(1_000_000),
  perSeconds: z.union([z.literal(1), z.literal(60)]),
});
/** See {@link RateLimit}. */
export type RateLimit = z.infer<typeof RateLimit>;

/**
 * What the operator set for one app (admin CLI `apps policy`); each field left out takes the deployment's default
 * (POLICY_DEFAULT_*). `chains`, `targets` and `maxValueWei` are allowlists and bounds with no default (unset: any).
 */
export const PolicySettings = z
  .object({
    /** Gas the app's requests may cost per chain per period (reserved at acceptance, settled once final). */
    budgetGas: Amount.optional(),
    /** The rolling period of the budget, in seconds. */
    periodSeconds: z
      .number()
      .int()
      .min(60)
      .max(31 * 86_400)
      .optional(),
    rate: RateLimit.optional(),
    chains: z.array(ChainName).min(1).optional(),
    targets: z.array(Address).min(1).optional(),
    maxValueWei: Amount.optional(),
    /** Gas one user id's requests of this app may cost per chain in a rolling day. */
    userDailyCapGas: Amount.optional(),
  })
  .strict();
/** See {@link PolicySettings}. */
export type PolicySettings = z.infer<typeof PolicySettings>;
/** {@link PolicySettings} before parsing: amounts as decimal strings, as JSON stores them. */
export type PolicySettingsInput = z.input<typeof PolicySettings>;

/** The settings as stored (JSON, amounts as decimal strings). */
export function serializePolicySettings(settings: PolicySettings): string {
  return JSON.stringify(settings, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

/** Settings read back from storage (parsed: a hand-edited row fails loudly). */
export function parsePolicySettings(json: string | null): PolicySettings {
  return json === null ? {} : PolicySettings.parse(JSON.parse(json));
}

/** Reads a rate written `<n>/s` or `<n>/min` (also `/second`, `/minute`), or undefined if it is not one. */
export function parseRate(text: string): RateLimit | undefined {
  const match = /^(\d{1,7})\/(s|sec|second|m|min|minute)$/.exec(text.trim());
  if (!match) return undefined;
  const parsed = RateLimit.safeParse({ requests: Number(match[1]), perSeconds: match[2]!.startsWith("s") ? 1 : 60 });
  return parsed.success ? parsed.data : undefined;
}

/** A rate as the CLI and README write it. */
export const formatRate = (rate: RateLimit): string => `${rate.requests}/${rate.perSeconds === 1 ? "s" : "min"}`;
