import { checkHandleRule } from "./handleRules";
import { canonicalEmail, canonicalHandle, canonicalSubject, canonicalTel, InvalidUsername } from "./usernameRules";

/** Providers every deployment knows (design §3); apps may register others with the same syntax. */
export const BUILT_IN_PROVIDERS = [
  "tel",
  "email",
  "github",
  "twitter",
  "x",
  "discord",
  "telegram",
  "google",
  "apple",
] as const;

const BUILT_IN: ReadonlySet<string> = new Set(BUILT_IN_PROVIDERS);

/** True for a provider of design §3 whose canonical form idwallet defines; any other is app-owned. */
export const isBuiltInProvider = (provider: string): boolean => BUILT_IN.has(provider);

/** A user id split into its provider and canonical username. */
export interface UserId {
  readonly provider: string;
  readonly username: string;
}

/** The `provider:username` string form; the wallet salt is derived from it, so it must stay stable. */
export const formatUserId = (id: UserId): string => `${id.provider}:${id.username}`;

/** A user id that cannot be canonicalized; `reason` never quotes the input, which may be anything a client sent. */
export class InvalidUserIdError extends Error {
  override readonly name = "InvalidUserIdError";

  constructor(
    /** The raw, untrusted input; whoever displays it must truncate and escape it. */
    readonly input: string,
    readonly reason: string,
  ) {
    super(`Invalid user id: ${reason}`);
  }
}

// Bounds the work done on hostile input: checked (in UTF-16 units, as JS counts) before trimming or normalizing.
const MAX_INPUT_LENGTH = 300;
// A DNS-label shape, so a provider is also a valid ENS label (design §3 "<username labels>.<provider>.<ens_domain>").
// Matched before lowercasing: U+212A KELVIN SIGN lowercases to ASCII "k" and must not slip through.
const PROVIDER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$/;

/** Parses any accepted spelling of a user id into its canonical form (design §3), or throws InvalidUserIdError. */
export function parseUserId(input: string): UserId {
  const fail = (reason: string): never => {
    throw new InvalidUserIdError(input, reason);
  };
  if (input.length > MAX_INPUT_LENGTH) fail(`user id must be at most ${MAX_INPUT_LENGTH} characters`);
  const trimmed = input.trim();
  // The first colon only: usernames may contain colons of their own.
  const colon = trimmed.indexOf(":");
  if (colon < 0) fail('user id must have the form "provider:username"');
  const rawProvider = trimmed.slice(0, colon).trim();
  if (rawProvider === "") fail("provider must not be empty");
  if (!PROVIDER.test(rawProvider)) {
    fail("provider must match [a-z0-9-]{1,32} and not start or end with '-'");
  }
  const provider = rawProvider.toLowerCase();
  const rawUsername = trimmed.slice(colon + 1);
  try {
    const username = canonicalUsername(provider, rawUsername);
    return Object.freeze({ provider, username });
  } catch (err) {
    if (err instanceof InvalidUsername) return fail(err.reason);
    throw err;
  }
}

function canonicalUsername(provider: string, raw: string): string {
  if (provider === "tel") return canonicalTel(raw);
  if (provider === "email") return canonicalEmail(raw);
  // An app-owned username is its identity service's subject, which the proof's `sub` must equal exactly.
  if (!isBuiltInProvider(provider)) return canonicalSubject(raw);
  const handle = canonicalHandle(raw);
  checkHandleRule(provider, handle);
  return handle;
}

/** The canonical `provider:username` string for any accepted spelling; the one form to store, hash and compare. */
export const canonicalUserId = (input: string): string => formatUserId(parseUserId(input));
