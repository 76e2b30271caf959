import { InvalidUsername, canonicalEmail } from "./usernameRules";

/** A built-in provider's published username rule, checked on the canonical (lowercased) username. */
interface HandleRule {
  readonly pattern: RegExp;
  /** The rule in words, for the 400 `reason`; never quotes the username. */
  readonly rule: string;
}

// Lowercase only: the canonical form is lowercased before these are checked. Lengths are in characters, and every
// allowed character is ASCII, so UTF-16 units count them exactly.
const HANDLE_RULES: ReadonlyMap<string, HandleRule> = new Map([
  [
    "github",
    {
      // GitHub's sign-up form: "Username may only contain alphanumeric characters or single hyphens, and cannot
      // begin or end with a hyphen"; at most 39 characters.
      pattern: /^(?=[a-z0-9-]{1,39}$)[a-z0-9]+(?:-[a-z0-9]+)*$/,
      rule: "a github username is 1 to 39 characters of a-z, 0-9 and '-', not starting or ending with '-', without '--'",
    },
  ],
  [
    "x",
    {
      // X Help Center, "Help with username registration": at most 15 characters, letters, digits and underscores.
      pattern: /^[a-z0-9_]{1,15}$/,
      rule: "an x username is 1 to 15 characters of a-z, 0-9 and '_'",
    },
  ],
  [
    "twitter",
    {
      // The same accounts as x (X Help Center, as above).
      pattern: /^[a-z0-9_]{1,15}$/,
      rule: "a twitter username is 1 to 15 characters of a-z, 0-9 and '_'",
    },
  ],
  [
    "telegram",
    {
      // Telegram FAQ "Usernames and t.me": a-z, 0-9 and underscores, at least 5 characters; its clients also
      // require at most 32, a letter first and no underscore last.
      pattern: /^[a-z][a-z0-9_]{3,30}[a-z0-9]$/,
      rule: "a telegram username is 5 to 32 characters of a-z, 0-9 and '_', starting with a letter, not ending with '_'",
    },
  ],
  [
    "discord",
    {
      // Discord's unique usernames (2023; the "name#1234" discriminators are gone): 2 to 32 characters of a-z, 0-9,
      // '_' and '.', no two periods in a row; not starting or ending with '.'.
      pattern: /^(?=[a-z0-9_.]{2,32}$)[a-z0-9_]+(?:\.[a-z0-9_]+)*$/,
      rule: "a discord username is 2 to 32 characters of a-z, 0-9, '_' and '.', without '..', not starting or ending with '.'",
    },
  ],
  [
    "apple",
    {
      // Sign in with Apple's stable user identifier (the token's `sub`). Apple publishes no grammar; this is the
      // observed shape: digits, lowercase hex and dots, such as 000000.<32 hex digits>.0000.
      pattern: /^(?=[0-9a-f.]{1,255}$)[0-9a-f]+(?:\.[0-9a-f]+)*$/,
      rule: "an apple username is 1 to 255 characters of 0-9, a-f and '.', without '..', not starting or ending with '.'",
    },
  ],
]);

/**
 * Checks a canonical username of a built-in handle provider against that provider's published rules (design §3: an
 * id nobody can prove gets no wallet); throws InvalidUsername naming the rule. `google` usernames are the account's
 * e-mail address, under the `email` rules.
 */
export function checkHandleRule(provider: string, username: string): void {
  if (provider === "google") {
    canonicalEmail(username);
    return;
  }
  const handle = HANDLE_RULES.get(provider);
  if (handle === undefined) throw new Error(`no username rule for the built-in provider ${provider}`);
  if (!handle.pattern.test(username)) throw new InvalidUsername(handle.rule);
}
