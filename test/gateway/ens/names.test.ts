import { expect } from "chai";
import fc from "fast-check";
import { dnsEncode, ensNormalize } from "ethers";
import { BUILT_IN_PROVIDERS, type UserId, formatUserId, parseUserId } from "../../../gateway/identity/userId";
import { nameToUserId, userIdToName } from "../../../gateway/ens/names";
import { decodeDnsName, InvalidDnsNameError } from "../../../gateway/ens/dnsName";

const DOMAIN = "idwallet.eth";
/** Built-in providers, and `demo` as a registered, enabled app provider (`gone` is registered but removed). */
const hasNames = (p: string) => (BUILT_IN_PROVIDERS as readonly string[]).includes(p) || p === "demo";
const idOf = (name: string) => {
  const userId = nameToUserId(name, DOMAIN, hasNames);
  return userId && formatUserId(userId);
};
const nameOf = (userId: string) => userIdToName(parseUserId(userId), DOMAIN, hasNames);
/** The id of `input`, or undefined when it is not a valid user id. */
const validId = (input: string): UserId | undefined => {
  try {
    return parseUserId(input);
  } catch {
    return undefined;
  }
};

describe("ENS names ↔ user ids", () => {
  const pairs: [string, string][] = [
    ["github:alice", "alice.github.idwallet.eth"],
    ["github:octo-cat", "octo-cat.github.idwallet.eth"],
    ["tel:15551234567", "15551234567.tel.idwallet.eth"],
    ["email:alice@example.com", "alice.at.example.com.email.idwallet.eth"],
    ["email:first.last@sub.example.co.uk", "first.last.at.sub.example.co.uk.email.idwallet.eth"],
    ["email:bob@at.example.com", "bob.at.at.example.com.email.idwallet.eth"],
    ["google:someone@gmail.com", "someone.at.gmail.com.google.idwallet.eth"],
    ["x:jack", "jack.x.idwallet.eth"],
    ["x:jack_dorsey", "jack-dorsey.x.idwallet.eth"],
    ["twitter:_jack_", "-jack-.twitter.idwallet.eth"],
    ["telegram:jack_dorsey", "jack-dorsey.telegram.idwallet.eth"],
    ["discord:jack.dorsey_", "jack.dorsey-.discord.idwallet.eth"],
    ["apple:000123.0123456789abcdef.0456", "000123.0123456789abcdef.0456.apple.idwallet.eth"],
    ["demo:alice", "alice.demo.idwallet.eth"],
    ["demo:ünïcödé", "ünïcödé.demo.idwallet.eth"],
  ];
  for (const [userId, name] of pairs) {
    it(`maps ${userId} ↔ ${name}`, () => {
      expect(nameOf(userId)).to.equal(name);
      expect(idOf(name)).to.equal(userId);
      // The fast path for plain-ASCII names agrees with ethers' ENSIP-15 normalization.
      expect(ensNormalize(name)).to.equal(name);
    });
  }

  it("normalizes a name before mapping it (ENSIP-15)", () => {
    expect(idOf("Alice.GitHub.IDWallet.eth")).to.equal("github:alice");
    expect(idOf("Jack-Dorsey.X.idwallet.eth")).to.equal("x:jack_dorsey");
  });

  it("maps a capitalized name of an app-owned provider to the lowercase id, never the capitalized one", () => {
    // ENSIP-15 lowercases every name, so demo:Alice (a subject of its own) has no name and cannot be reached by one.
    expect(idOf("Alice.demo.idwallet.eth")).to.equal("demo:alice");
    expect(nameOf("demo:Alice")).to.equal(undefined);
  });

  it("an attacker registers x:jack-dorsey to catch payments meant for jack_dorsey: no such id, the name is jack_dorsey's", () => {
    expect(validId("x:jack-dorsey")).to.equal(undefined);
    expect(idOf("jack-dorsey.x.idwallet.eth")).to.equal("x:jack_dorsey");
  });

  it("an attacker's app provider, unregistered or removed, gives its names to nobody", () => {
    const onlyBuiltIn = (p: string) => (BUILT_IN_PROVIDERS as readonly string[]).includes(p);
    expect(nameToUserId("alice.demo.idwallet.eth", DOMAIN, onlyBuiltIn)).to.equal(undefined);
    expect(userIdToName(parseUserId("demo:alice"), DOMAIN, onlyBuiltIn)).to.equal(undefined);
    expect(idOf("alice.gone.idwallet.eth")).to.equal(undefined);
  });

  const noId = [
    ["outside the domain", "alice.github.other.eth"],
    ["the domain itself", "idwallet.eth"],
    ["a provider without a username", "github.idwallet.eth"],
    ["an unknown provider", "alice.myspace.idwallet.eth"],
    ["an e-mail name without the at label", "alice.example.com.email.idwallet.eth"],
    ["an e-mail name with nothing after at", "alice.at.email.idwallet.eth"],
    ["an e-mail name with nothing before at", "at.example.com.email.idwallet.eth"],
    ["a google name without the at label", "someone.gmail.com.google.idwallet.eth"],
    ["an invalid phone number", "12.tel.idwallet.eth"],
    ["a name that cannot be normalized", "a@b.github.idwallet.eth"],
    ["an x name with a leading '_' (its id's name has '-')", "_jack.x.idwallet.eth"],
    ["an x name with dots", "jack.dorsey.x.idwallet.eth"],
    ["a github username no account can have", "alice-.github.idwallet.eth"],
    ["a telegram username too short", "abcd.telegram.idwallet.eth"],
  ];
  for (const [why, name] of noId) {
    it(`has no user id for ${why}`, () => expect(idOf(name!)).to.equal(undefined));
  }

  const noName = [
    ["a colon", "demo:ali:ce"],
    ["an underscore after a label's first character", "demo:jack_dorsey"],
    ["a plus in an e-mail address", "email:a+tag@example.com"],
    ["a hash", "demo:user#1234"],
    ["an at label in the e-mail local part", "email:x.at.y@example.com"],
    ["an at label in a google address's local part", "google:x.at.y@gmail.com"],
    ["'__' as a label's 3rd and 4th characters (its '--' is ENSIP-15's label extension)", "x:ab__cd"],
    ["a capital letter in an app-owned subject", "demo:Alice"],
    ["a leading @ in an app-owned subject", "demo:@alice"],
    ["a label over 255 bytes (no client can DNS-encode it)", `demo:${"名".repeat(86)}`],
  ];
  for (const [why, userId] of noName) {
    it(`gives no name to an id with ${why}`, () => expect(nameOf(userId!)).to.equal(undefined));
  }

  it("gives no name whose DNS encoding is over 1024 bytes, which the resolver contract does not read", () => {
    const username = Array.from({ length: 3 }, () => "名".repeat(80)).join(".");
    const longDomain = `${["d", "e", "f", "g", "h"].map((c) => c.repeat(60)).join(".")}.eth`;
    expect(userIdToName(parseUserId(`demo:${username}`), DOMAIN, hasNames)).to.be.a("string");
    expect(userIdToName(parseUserId(`demo:${username}`), longDomain, hasNames)).to.equal(undefined);
  });

  const char = (chars: string) => fc.constantFrom(...chars);
  const word = (chars: string, min: number, max: number) =>
    fc.string({ unit: char(chars), minLength: min, maxLength: max });
  const LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
  /** Inputs near every provider's rules, valid or not: each provider's characters plus its neighbours'. */
  const input = fc.oneof(
    word(`${LOWER}-_.`, 1, 40).map((u) => `github:${u}`),
    fc.tuple(fc.constantFrom("x", "twitter"), word(`${LOWER}_-`, 1, 16)).map(([p, u]) => `${p}:${u}`),
    word(`${LOWER}__-`, 4, 33).map((u) => `telegram:${u}`),
    word(`${LOWER}_._-`, 1, 33).map((u) => `discord:${u}`),
    word("0123456789abcdefg..", 1, 40).map((u) => `apple:${u}`),
    fc
      .tuple(fc.constantFrom("email", "google"), word(`${LOWER}._+`, 1, 12), word("abcat.", 1, 12))
      .map(([p, local, domain]) => `${p}:${local}@${domain}.com`),
    word("0123456789", 8, 15).map((u) => `tel:${u}`),
    fc.string({ minLength: 1, maxLength: 12 }).map((u) => `demo:${u}`),
    word(`${LOWER}-_.ABü`, 1, 12).map((u) => `demo:${u}`),
  );

  it("round-trips every valid id that has a name: nameToUserId(userIdToName(id)) is id", () => {
    let named = 0;
    fc.assert(
      fc.property(input, (raw) => {
        const id = validId(raw);
        const name = id && userIdToName(id, DOMAIN, hasNames);
        if (id === undefined || name === undefined) return;
        named++;
        expect(nameToUserId(name, DOMAIN, hasNames)).to.deep.equal(id);
        expect(ensNormalize(name)).to.equal(name);
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: a good share of the generated ids are valid and named.
    expect(named).to.be.greaterThan(500);
  });

  it("maps any name either to nothing or to an id whose own name it is", () => {
    const label = fc.oneof(
      word(`${LOWER}-_`, 1, 12),
      fc.constant("at"),
      fc.string({ minLength: 1, maxLength: 6 }),
      word("abcABC-_üß", 1, 6),
    );
    const provider = fc.constantFrom(...BUILT_IN_PROVIDERS, "demo", "gone", "X", "Discord");
    let mapped = 0;
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), provider, (labels, p) => {
        const name = `${labels.join(".")}.${p}.${DOMAIN}`;
        const id = nameToUserId(name, DOMAIN, hasNames);
        if (id === undefined) return;
        mapped++;
        expect(userIdToName(id, DOMAIN, hasNames)).to.equal(ensNormalize(name));
        expect(parseUserId(formatUserId(id))).to.deep.equal(id);
      }),
      { numRuns: 3000 },
    );
    expect(mapped).to.be.greaterThan(100);
  });

  it("decodes DNS wire-format names and refuses malformed ones", () => {
    expect(
      decodeDnsName(Uint8Array.from(Buffer.from(dnsEncode("alice.github.idwallet.eth").slice(2), "hex"))),
    ).to.equal("alice.github.idwallet.eth");
    for (const bad of ["", "05616c696365", "05616c69636500ff", "02ffff00"]) {
      expect(() => decodeDnsName(Uint8Array.from(Buffer.from(bad, "hex"))), bad).to.throw(InvalidDnsNameError);
    }
  });
});
