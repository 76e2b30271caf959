import { expect } from "chai";
import {
  BUILT_IN_PROVIDERS,
  canonicalUserId,
  formatUserId,
  InvalidUserIdError,
  parseUserId,
} from "../../../gateway/identity/userId";

const UNICODE_NFC = "\u00dcn\u00efc\u00f6d\u00e9"; // "Ünïcödé", precomposed
const UNICODE_NFD = UNICODE_NFC.normalize("NFD"); // same text, base letters + combining marks
const LOWER_NFC = "\u00fcn\u00efc\u00f6d\u00e9"; // "ünïcödé"

/** [what the case shows, input, exact canonical output] */
const accepted: ReadonlyArray<readonly [string, string, string]> = [
  ["plain id", "github:alice", "github:alice"],
  ["mixed-case provider and username", "GitHub:AliceSmith", "github:alicesmith"],
  ["one leading @ dropped", "twitter:@Alice", "twitter:alice"],
  ["whitespace around the whole id", "  github:alice \t\n", "github:alice"],
  ["whitespace around provider and username", " GITHUB : @alice ", "github:alice"],
  ["colon inside an app-owned subject", "demo:a:b", "demo:a:b"],
  ["app-owned provider lowercased, its subject kept as issued", "My-App2:User42", "my-app2:User42"],
  ["app-owned subjects differing in case stay apart", "demo:Alice", "demo:Alice"],
  ["app-owned subject keeps a leading @", "demo:@alice", "demo:@alice"],
  ["app-owned subject trimmed only", " demo : Firebase-UID_9xQ ", "demo:Firebase-UID_9xQ"],
  ["app-owned NFD subject gives NFC, case kept", `demo:${UNICODE_NFD}`, `demo:${UNICODE_NFC}`],
  ["app-owned subject with | and @ inside", "demo:auth0|5f@x", "demo:auth0|5f@x"],
  ["255-character app-owned subject", `demo:${"A".repeat(255)}`, `demo:${"A".repeat(255)}`],
  ["32-character provider", `${"p".repeat(32)}:u`, `${"p".repeat(32)}:u`],
  ["unicode NFC e-mail", `email:${UNICODE_NFC}@x.com`, `email:${LOWER_NFC}@x.com`],
  ["unicode NFD e-mail gives the NFC form", `email:${UNICODE_NFD}@x.com`, `email:${LOWER_NFC}@x.com`],
  ["lowercasing that leaves a combining mark", "email:\u0130stanbul@x.com", "email:i\u0307stanbul@x.com"],
  // U+01F0 has no uppercase form, so "J" + caron is NFC until lowercased: NFC must run again afterwards.
  ["lowercasing that makes a composable pair", "email:J\u030Cosef@x.com", "email:\u01F0osef@x.com"],
  ["KELVIN SIGN in a handle lowercases to ASCII k", "github:\u212Aelvin", "github:kelvin"],
  ["google address with a leading @ dropped, lowercased", "google:@Someone@Gmail.com", "google:someone@gmail.com"],
  ["300 characters including padding", `github:alice${" ".repeat(288)}`, "github:alice"],
  ["e-mail lowercased", "email:Alice@Example.COM", "email:alice@example.com"],
  ["e-mail dots and +tag kept", "email:a.b+tag@x.com", "email:a.b+tag@x.com"],
  [
    "e-mail mixed case with dots and +tag",
    "EMAIL: Alice.Smith+News@Mail.Example.org ",
    "email:alice.smith+news@mail.example.org",
  ],
  ["e-mail NFD gives NFC", `email:${"J\u00d6rg@B\u00fccher.de".normalize("NFD")}`, "email:j\u00f6rg@b\u00fccher.de"],
  ["tel with +, spaces, parentheses, hyphen", "tel:+1 (555) 123-4567", "tel:15551234567"],
  ["tel digits only", "tel:15551234567", "tel:15551234567"],
  ["tel with + only", "tel:+15551234567", "tel:15551234567"],
  ["tel with dots", "tel:+49.30.1234567", "tel:49301234567"],
  ["tel with slashes", "Tel: +44/20/7946/0958 ", "tel:442079460958"],
  ["tel 8 digits", "tel:12345678", "tel:12345678"],
  ["tel national digits with + and country code", "tel:+1 (647) 555-1234", "tel:16475551234"],
  ["tel 15 digits", "tel:123456789012345", "tel:123456789012345"],
];

/** [what the case shows, input, pattern the reason must match] */
const rejected: ReadonlyArray<readonly [string, string, RegExp]> = [
  ["no colon", "github-alice", /provider:username/],
  ["empty input", "", /provider:username/],
  ["whitespace only", "   ", /provider:username/],
  ["empty provider", ":alice", /provider must not be empty/],
  ["blank provider", "  :alice", /provider must not be empty/],
  ["underscore in provider", "git_hub:alice", /provider must match/],
  ["space in provider", "git hub:alice", /provider must match/],
  ["non-ASCII letter in provider", "g\u00efthub:alice", /provider must match/],
  ["KELVIN SIGN that lowercases to k", "\u212Aey:alice", /provider must match/],
  ["provider starting with -", "-github:alice", /provider must match/],
  ["provider ending with -", "github-:alice", /provider must match/],
  ["33-character provider", `${"p".repeat(33)}:alice`, /provider must match/],
  ["empty username", "github:", /must not be empty/],
  ["blank username", "github:   ", /must not be empty/],
  ["username only @", "github:@", /must not be empty/],
  ["empty e-mail", "email:", /must not be empty/],
  ["empty tel", "tel:", /must not be empty/],
  ["two leading @", "github:@@alice", /at most one '@'/],
  ["comma in username", "github:alice,bob", /comma/],
  ["comma in e-mail", "email:a,b@x.com", /comma/],
  ["space inside username", "github:alice bob", /whitespace/],
  ["space after the @", "github:@ alice", /whitespace/],
  ["tab inside username", "github:alice\tbob", /whitespace/],
  ["no-break space inside username", "github:alice\u00a0bob", /whitespace/],
  ["NUL in username", "github:alice\u0000", /control/],
  ["BEL in username", "github:ali\u0007ce", /control/],
  ["DEL in username", "github:ali\u007fce", /control/],
  ["zero-width space in username", "github:ali\u200bce", /invisible/],
  ["right-to-left override in username", "github:\u202ealice", /invisible/],
  ["lone surrogate in username", "github:ab\ud800c", /invisible/],
  ["control character in e-mail", "email:a\u0001b@x.com", /control/],
  ["40-character github username", `github:${"a".repeat(40)}`, /1 to 39 characters/],
  ["unicode github username", `github:${UNICODE_NFC}`, /a github username is 1 to 39 characters of a-z, 0-9 and '-'/],
  ["combining mark left by lowercasing", "github:\u0130stanbul", /a github username/],
  ["colon in a github username", "github:a:b", /a github username/],
  ["@ inside a discord username", "discord:a@b", /a discord username/],
  ["256-character app-owned subject", `demo:${"A".repeat(256)}`, /at most 255/],
  ["space inside an app-owned subject", "demo:Alice Smith", /whitespace/],
  ["comma in an app-owned subject", "demo:alice,bob", /comma/],
  ["zero-width space in an app-owned subject", "demo:ali\u200bce", /invisible/],
  ["blank app-owned subject", "demo:  ", /must not be empty/],
  ["tel in national format", "tel:(647) 555-1234", /country code: add a leading '\+'/],
  ["tel with punctuation but no +", "tel:1.555.123.4567", /country code/],
  ["tel with spaces but no +", "tel:44 20 7946 0958", /country code/],
  ["emoji in an x username", `x:${"\u{1F600}".repeat(3)}`, /an x username is 1 to 15/],
  ["tel with letters", "tel:+1 555 CALL NOW", /only digits/],
  ["tel with extension", "tel:15551234567x89", /only digits/],
  ["tel with two +", "tel:++15551234567", /only digits/],
  ["tel with + in the middle", "tel:1+5551234567", /only digits/],
  ["tel with comma", "tel:1555,1234567", /only digits/],
  ["tel with Arabic-Indic digits", `tel:${"\u0661\u0665\u0665\u0665".repeat(3)}`, /only digits/],
  ["tel too short (7 digits)", "tel:+1234567", /8 to 15 digits/],
  ["tel too long (16 digits)", "tel:1234567890123456", /8 to 15 digits/],
  ["tel starting with 0", "tel:05551234567", /8 to 15 digits/],
  ["tel with 00 international prefix", "tel:0015551234567", /8 to 15 digits/],
  ["tel punctuation only", "tel:+ ()", /8 to 15 digits/],
  ["e-mail without @", "email:alice.example.com", /exactly one '@'/],
  ["e-mail with two @", "email:a@b@example.com", /exactly one '@'/],
  ["e-mail with a leading @ handle", "email:@alice@example.com", /exactly one '@'/],
  ["e-mail with empty local part", "email:@example.com", /local part/],
  ["e-mail without dot in domain", "email:alice@localhost", /domain/],
  ["e-mail with empty domain", "email:alice@", /domain/],
  ["e-mail domain starting with a dot", "email:alice@.com", /domain/],
  ["e-mail domain with an empty label", "email:alice@x..com", /domain/],
  ["e-mail domain ending with a dot", "email:alice@x.com.", /domain/],
  ["space inside e-mail", "email:alice smith@x.com", /whitespace/],
  ["e-mail over 254 characters", `email:${"a".repeat(250)}@x.com`, /at most 254 bytes/],
  ["e-mail over 254 UTF-8 bytes", `email:${"\u00e9".repeat(125)}@x.com`, /at most 254 bytes/],
  ["input over 300 characters", `github:${"a".repeat(294)}`, /at most 300 characters/],
  ["over 300 characters only by padding", ` github:alice${" ".repeat(288)}`, /at most 300 characters/],
];

function rejectionOf(input: string): InvalidUserIdError {
  try {
    parseUserId(input);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidUserIdError);
    return err as InvalidUserIdError;
  }
  return expect.fail(`accepted ${JSON.stringify(input)}`);
}

describe("gateway/identity/userId", () => {
  describe("accepts and canonicalizes", () => {
    for (const [what, input, canonical] of accepted) {
      it(what, () => {
        expect(canonicalUserId(input)).to.equal(canonical);
        // A canonical id is a fixed point: storing and re-parsing it must not move the wallet.
        expect(canonicalUserId(canonical)).to.equal(canonical);
      });
    }
  });

  describe("rejects", () => {
    for (const [what, input, reason] of rejected) {
      it(what, () => {
        const err = rejectionOf(input);
        expect(err.reason).to.be.a("string").and.not.equal("");
        expect(err.reason).to.match(reason);
        expect(err.input).to.equal(input);
        expect(err.message).to.equal(`Invalid user id: ${err.reason}`);
        expect(err.name).to.equal("InvalidUserIdError");
      });
    }
  });

  it("never quotes the input in the error message", () => {
    const secret = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    for (const input of [`github:${secret},x`, `tel:${secret}`, `email:${secret}`, `${secret}`]) {
      const err = rejectionOf(input);
      expect(err.message).not.to.contain(secret.slice(2, 12));
      expect(err.reason).not.to.contain(secret.slice(2, 12));
    }
  });

  it("splits at the first colon into provider and canonical username", () => {
    const id = parseUserId(" Demo:@Alice:Work ");
    expect(id).to.deep.equal({ provider: "demo", username: "@Alice:Work" });
    expect(Object.isFrozen(id)).to.equal(true);
  });

  it("formats provider and username with one colon", () => {
    expect(formatUserId({ provider: "demo", username: "a:b" })).to.equal("demo:a:b");
  });

  it("lists the built-in providers of design §3, each a valid provider", () => {
    expect(BUILT_IN_PROVIDERS).to.deep.equal([
      "tel",
      "email",
      "github",
      "twitter",
      "x",
      "discord",
      "telegram",
      "google",
      "apple",
    ]);
    const sample: Record<string, string> = {
      tel: "15551234567",
      email: "a@b.co",
      google: "a@gmail.com",
      apple: "001234.abcdef0123456789.0042",
    };
    for (const provider of BUILT_IN_PROVIDERS) {
      const username = sample[provider] ?? "alice";
      expect(parseUserId(`${provider.toUpperCase()}:${username}`).provider).to.equal(provider);
    }
  });
});
