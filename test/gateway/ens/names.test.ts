import { expect } from "chai";
import { formatUserId, parseUserId } from "../../../gateway/identity/userId";
import { nameToUserId, userIdToName } from "../../../gateway/ens/names";
import { decodeDnsName, InvalidDnsNameError } from "../../../gateway/ens/dnsName";
import { dnsEncode } from "ethers";

const DOMAIN = "idwallet.eth";
const known = (p: string) => ["github", "tel", "email", "x", "discord", "telegram", "demo"].includes(p);
const idOf = (name: string) => {
  const userId = nameToUserId(name, DOMAIN, known);
  return userId && formatUserId(userId);
};

describe("ENS names ↔ user ids", () => {
  const pairs: [string, string][] = [
    ["github:alice", "alice.github.idwallet.eth"],
    ["discord:jack.dorsey", "jack.dorsey.discord.idwallet.eth"],
    ["tel:15551234567", "15551234567.tel.idwallet.eth"],
    ["email:alice@example.com", "alice.at.example.com.email.idwallet.eth"],
    ["email:first.last@sub.example.co.uk", "first.last.at.sub.example.co.uk.email.idwallet.eth"],
    ["email:bob@at.example.com", "bob.at.at.example.com.email.idwallet.eth"],
    ["demo:ünïcödé", "ünïcödé.demo.idwallet.eth"],
    ["x:jack", "jack.x.idwallet.eth"],
    ["demo:alice", "alice.demo.idwallet.eth"],
  ];
  for (const [userId, name] of pairs) {
    it(`maps ${userId} ↔ ${name}`, () => {
      expect(userIdToName(parseUserId(userId), DOMAIN)).to.equal(name);
      expect(idOf(name)).to.equal(userId);
    });
  }

  it("normalizes a name before mapping it (ENSIP-15)", () => {
    expect(idOf("Alice.GitHub.IDWallet.eth")).to.equal("github:alice");
  });

  it("maps a capitalized name of an app-owned provider to the lowercase id, never the capitalized one", () => {
    // ENSIP-15 lowercases every name, so demo:Alice (a subject of its own) has no name and cannot be reached by one.
    expect(idOf("Alice.demo.idwallet.eth")).to.equal("demo:alice");
    expect(userIdToName(parseUserId("demo:Alice"), DOMAIN)).to.equal(undefined);
  });

  const noId = [
    ["outside the domain", "alice.github.other.eth"],
    ["the domain itself", "idwallet.eth"],
    ["a provider without a username", "github.idwallet.eth"],
    ["an unknown provider", "alice.myspace.idwallet.eth"],
    ["an e-mail name without the at label", "alice.example.com.email.idwallet.eth"],
    ["an e-mail name with nothing after at", "alice.at.email.idwallet.eth"],
    ["an e-mail name with nothing before at", "at.example.com.email.idwallet.eth"],
    ["an invalid phone number", "12.tel.idwallet.eth"],
    ["a name that cannot be normalized", "a@b.github.idwallet.eth"],
  ];
  for (const [why, name] of noId) {
    it(`has no user id for ${why}`, () => expect(idOf(name!)).to.equal(undefined));
  }

  const noName = [
    ["a colon", "demo:ali:ce"],
    ["an underscore after the first character", "x:jack_dorsey"],
    ["a plus in an e-mail address", "email:a+tag@example.com"],
    ["a hash", "demo:user#1234"],
    ["an at label in the e-mail local part", "email:x.at.y@example.com"],
    ["a capital letter in an app-owned subject", "demo:Alice"],
    ["a leading @ in an app-owned subject", "demo:@alice"],
  ];
  for (const [why, userId] of noName) {
    it(`gives no name to an id with ${why}`, () =>
      expect(userIdToName(parseUserId(userId!), DOMAIN)).to.equal(undefined));
  }

  it("decodes DNS wire-format names and refuses malformed ones", () => {
    expect(
      decodeDnsName(Uint8Array.from(Buffer.from(dnsEncode("alice.github.idwallet.eth").slice(2), "hex"))),
    ).to.equal("alice.github.idwallet.eth");
    for (const bad of ["", "05616c696365", "05616c69636500ff", "02ffff00"]) {
      expect(() => decodeDnsName(Uint8Array.from(Buffer.from(bad, "hex"))), bad).to.throw(InvalidDnsNameError);
    }
  });
});
