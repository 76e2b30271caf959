/** A username that breaks its provider's rule; parseUserId rethrows it as InvalidUserIdError with the whole input. */
export class InvalidUsername extends Error {
  override readonly name = "InvalidUsername";

  constructor(readonly reason: string) {
    super(reason);
  }
}

const fail = (reason: string): never => {
  throw new InvalidUsername(reason);
};

// OpenID Connect Core §2: `sub` is at most 255 ASCII characters; code points here, as for handles.
const MAX_SUBJECT_CODE_POINTS = 255;
// RFC 5321 §4.5.3.1.3: a path is at most 256 octets including its angle brackets.
const MAX_EMAIL_OCTETS = 254;
// Whitespace, and Unicode category C: control, format (zero-width, bidi overrides), surrogate, private-use and
// unassigned code points. Invisible ones let look-alike ids own different wallets; unassigned ones could compose
// differently under NFC in a later Unicode version and so change a canonical id, and with it a wallet address.
const FORBIDDEN = /[\s\p{C}]/u;
// Phone punctuation people type; anything else (letters, "x" extensions, a second "+") is refused, not guessed at.
const TEL_PUNCTUATION = /[ ().\/-]/g;
// ITU-T E.164: country code included, at most 15 digits; a leading 0 would be a trunk or international prefix.
const E164 = /^[1-9][0-9]{7,14}$/;

// NFC after lowercasing: lowercasing can turn NFC text into a composable pair ("J" + U+030C → U+01F0).
const nfcLower = (s: string): string => s.toLowerCase().normalize("NFC");

function checkCommon(name: string): void {
  if (name === "") fail("username must not be empty");
  if (FORBIDDEN.test(name)) fail("username must not contain whitespace, control or invisible characters");
  // The resolver joins ids with commas; a comma inside one would split it.
  if (name.includes(",")) fail("username must not contain a comma");
}

/**
 * `tel`: E.164 digits with country code, without "+" or punctuation (`+1 (555) 123-4567` → `15551234567`).
 * Punctuation is accepted only after a leading "+": without one, only the bare canonical digits are.
 */
export function canonicalTel(raw: string): string {
  const number = raw.trim();
  if (number === "") fail("username must not be empty");
  const international = number.startsWith("+");
  const digits = number.replace(/^\+/, "").replace(TEL_PUNCTUATION, "");
  if (!/^[0-9]*$/.test(digits)) {
    fail("phone number may contain only digits, a leading '+', spaces and ( ) - . /");
  }
  // "(647) 555-1234" would become 6475551234, a valid New Zealand number: a wallet no Canadian login can
  // prove. Written punctuation marks a number as typed by a person, often in national format, so it must
  // come with the "+" that says the country code is there; bare digits are the canonical international form.
  if (!international && digits !== number) {
    fail("phone number must include its country code: add a leading '+' (such as +1 647 555 1234)");
  }
  if (!E164.test(digits)) fail("phone number must have 8 to 15 digits including the country code, the first not 0");
  return digits;
}

/** `email`: trimmed, NFC, lowercased; the local part is otherwise kept as typed. */
export function canonicalEmail(raw: string): string {
  // No Gmail-style folding of dots or "+tag": on other providers those are different mailboxes.
  // Lowercasing the local part follows design §3: RFC 5321 allows case-sensitive mailboxes, real providers don't.
  const email = nfcLower(raw.trim());
  checkCommon(email);
  const parts = email.split("@");
  if (parts.length !== 2) fail("e-mail address must contain exactly one '@'");
  const [local = "", domain = ""] = parts;
  if (local === "") fail("e-mail address must have a local part before the '@'");
  if (!domain.includes(".") || domain.split(".").some((label) => label === "")) {
    fail("e-mail domain must be dot-separated non-empty labels, such as example.com");
  }
  if (new TextEncoder().encode(email).length > MAX_EMAIL_OCTETS) {
    fail(`e-mail address must be at most ${MAX_EMAIL_OCTETS} bytes`);
  }
  return email;
}

/**
 * App-owned providers: the identity service's subject exactly (design §3), only trimmed and NFC normalized.
 * OIDC `sub` is case-sensitive, so folding "Alice" onto "alice" would hand one user's wallet to another.
 */
export function canonicalSubject(raw: string): string {
  const subject = raw.trim().normalize("NFC");
  checkCommon(subject);
  if ([...subject].length > MAX_SUBJECT_CODE_POINTS) {
    fail(`username must be at most ${MAX_SUBJECT_CODE_POINTS} characters`);
  }
  return subject;
}

/**
 * Built-in handle providers: trimmed, NFC, lowercased, one leading "@" (a handle prefix) dropped. The provider's own
 * rule (handleRules.ts) is checked on the result.
 */
export function canonicalHandle(raw: string): string {
  let name = nfcLower(raw.trim());
  if (name.startsWith("@")) name = name.slice(1);
  // Dropping a second "@" would make "@@a" and "@a" both "a" while "@a" itself is not canonical: refuse instead,
  // so a canonical id always parses back to itself.
  if (name.startsWith("@")) fail("username may start with at most one '@'");
  checkCommon(name);
  return name;
}
