import {
  type PolicySettings,
  PolicySettings as PolicySettingsSchema,
  parseRate,
} from "../../gateway/config/policySettings";

/** Options of `apps policy`; each takes `default` to drop the app's own setting. */
export const POLICY_OPTIONS = {
  "budget-gas": { type: "string" },
  period: { type: "string" },
  rate: { type: "string" },
  chains: { type: "string" },
  targets: { type: "string" },
  "max-value-wei": { type: "string" },
  "user-daily-cap-gas": { type: "string" },
  reset: { type: "boolean" },
} as const;

/** The values of {@link POLICY_OPTIONS} as parseArgs gives them. */
export type PolicyOptions = {
  [K in keyof typeof POLICY_OPTIONS]?: (typeof POLICY_OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};

/** The usage lines of `apps policy`. */
export const POLICY_USAGE = `  apps policy <id> [--budget-gas <gas>] [--period <seconds|h|d>] [--rate <n>/s|<n>/min]
                [--chains <a,b>] [--targets <0x…,0x…>] [--max-value-wei <wei>] [--user-daily-cap-gas <gas>]
                [--reset]            show or change the app's budget and policy; "default" drops one setting`;

/** Thrown for a value `apps policy` cannot use. */
export class PolicyUsageError extends Error {}

/** A period written as seconds, or with an `h` or `d` suffix. */
function periodSeconds(text: string): number {
  const match = /^(\d{1,8})(s|h|d)?$/.exec(text.trim());
  if (!match) throw new PolicyUsageError(`--period: "${text}" is not seconds or <n>h / <n>d`);
  return Number(match[1]) * (match[2] === "h" ? 3600 : match[2] === "d" ? 86_400 : 1);
}

const list = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** Whether any option of `apps policy` was given (without any, the command only shows the policy). */
export const hasPolicyOptions = (values: PolicyOptions): boolean =>
  (Object.keys(POLICY_OPTIONS) as (keyof PolicyOptions)[]).some((o) => values[o] !== undefined);

/** The app's new settings: `current` (or nothing, with --reset) changed by the options given, validated. */
export function changedPolicy(current: PolicySettings, values: PolicyOptions): PolicySettings {
  const raw: Record<string, unknown> = Object.fromEntries(
    Object.entries(values.reset ? {} : current).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
  );
  const set = (key: keyof PolicySettings, text: string | undefined, read: (t: string) => unknown) => {
    if (text === undefined) return;
    if (text === "default") delete raw[key];
    else raw[key] = read(text);
  };
  set("budgetGas", values["budget-gas"], (t) => t);
  set("periodSeconds", values.period, periodSeconds);
  set("rate", values.rate, (t) => {
    const rate = parseRate(t);
    if (!rate) throw new PolicyUsageError(`--rate: "${t}" is not <n>/s or <n>/min`);
    return rate;
  });
  set("chains", values.chains, list);
  set("targets", values.targets, list);
  set("maxValueWei", values["max-value-wei"], (t) => t);
  set("userDailyCapGas", values["user-daily-cap-gas"], (t) => t);
  const parsed = PolicySettingsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new PolicyUsageError(
      parsed.error.issues.map((i) => `${i.path.join(".") || "policy"}: ${i.message}`).join("; "),
    );
  }
  return parsed.data;
}
