import { ensNormalize } from "ethers";
import { type UserId, parseUserId } from "../identity/userId";

/** Label that stands for `@` in e-mail names: `alice.at.example.com.email.<domain>` is `email:alice@example.com`. */
export const EMAIL_AT_LABEL = "at";

// ENSIP-15 maps a-z, 0-9 and "-" to themselves, and an all-ASCII label is then only checked for a
// leading-only "_" and the "xn--"-style extension ("--" as 3rd and 4th characters). So a name of such
// labels without that pattern is its own normalization, known without ethers' ensNormalize (~15 µs).
const PLAIN_ASCII_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;
const LABEL_EXTENSION = /(?:^|\.)[a-z0-9-]{2}--/;

/** ENSIP-15 normalized form of a name, or undefined if it cannot be normalized. */
function normalized(name: string): string | undefined {
  if (PLAIN_ASCII_NAME.test(name) && !LABEL_EXTENSION.test(name)) return name;
  try {
    return ensNormalize(name);
  } catch {
    return undefined;
  }
}

// Providers whose usernames are e-mail addresses: the first `at` label stands for the `@`.
const AT_PROVIDERS: ReadonlySet<string> = new Set(["email", "google"]);
// Providers whose usernames hold `_` but never `-` (handleRules.ts): ENSIP-15 allows `_` only at the start of a
// label, so their names write each `_` as `-`, one to one.
const UNDERSCORE_PROVIDERS: ReadonlySet<string> = new Set(["x", "twitter", "telegram", "discord"]);

/** Which providers' ids have names: built-in ones, and registered ones while enabled (knownProviders.ts). */
export type HasNames = (provider: string) => boolean;

/**
 * The user id a name under `domain` stands for: `<username labels>.<provider>.<domain>`, the username's
 * dots spanning labels; for e-mail and google, the first `at` label is the `@`; for x, twitter, telegram and
 * discord, each `-` is a `_`. Undefined for a name outside the domain, a provider without names, labels that
 * do not make a valid user id, or an id whose own name is another.
 */
export function nameToUserId(name: string, domain: string, hasNames: HasNames): UserId | undefined {
  const full = normalized(name);
  if (full === undefined || !full.endsWith(`.${domain}`)) return undefined;
  const labels = full.slice(0, -(domain.length + 1)).split(".");
  const provider = labels.pop();
  if (provider === undefined || labels.length === 0 || !hasNames(provider)) return undefined;
  let username = labels.join(".");
  if (AT_PROVIDERS.has(provider)) {
    const at = labels.indexOf(EMAIL_AT_LABEL);
    if (at < 1 || at === labels.length - 1) return undefined;
    username = `${labels.slice(0, at).join(".")}@${labels.slice(at + 1).join(".")}`;
  }
  if (UNDERSCORE_PROVIDERS.has(provider)) username = username.replaceAll("-", "_");
  try {
    const userId = parseUserId(`${provider}:${username}`);
    // The name must be the id's own name, not merely one that normalizes or maps to it.
    return userIdToName(userId, domain, hasNames) === full ? userId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ENS name of a user id under `domain`, or undefined if it has none: its provider must have names, and its
 * labels (after the `@` and `_` mappings of nameToUserId) must already be ENSIP-15 normalized, so `@`, `+`, `#`,
 * `:`, capitals, a `_` after a label's first character, or `--` as a label's 3rd and 4th characters rule a name
 * out; an e-mail local part must not contain an `at` label.
 */
export function userIdToName(userId: UserId, domain: string, hasNames: HasNames): string | undefined {
  if (!hasNames(userId.provider)) return undefined;
  let username = userId.username;
  if (AT_PROVIDERS.has(userId.provider)) {
    const at = username.lastIndexOf("@");
    const local = username.slice(0, at);
    if (local.split(".").includes(EMAIL_AT_LABEL)) return undefined;
    username = `${local}.${EMAIL_AT_LABEL}.${username.slice(at + 1)}`;
  }
  if (UNDERSCORE_PROVIDERS.has(userId.provider)) username = username.replaceAll("_", "-");
  const name = `${username}.${userId.provider}.${domain}`;
  if (!fitsDnsEncoding(name)) return undefined;
  return normalized(name) === name ? name : undefined;
}

// DNS wire format (ENSIP-10 passes names so): a label of at most 255 bytes behind its length byte; the resolver
// contract reads names of at most 1024 bytes so encoded. A longer name could be sent by no client as written.
const MAX_LABEL_BYTES = 255;
const MAX_ENCODED_NAME_BYTES = 1024;

/** Whether a name's DNS encoding (each label behind its length byte, then a zero byte) stays within the bounds. */
function fitsDnsEncoding(name: string): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes: 85 units make no label over 255 bytes nor a name over 1024.
  if (name.length <= 85) return true;
  const labels = name.split(".").map((label) => Buffer.byteLength(label, "utf8"));
  const encoded = labels.reduce((sum, bytes) => sum + 1 + bytes, 1);
  return encoded <= MAX_ENCODED_NAME_BYTES && labels.every((bytes) => bytes <= MAX_LABEL_BYTES);
}
