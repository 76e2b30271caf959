import { expect } from "chai";
import { checkWebhookUrl, isAllowedAddress, type TargetRules } from "../../../gateway/webhooks/webhookTarget";

const PUBLIC_ONLY: TargetRules = { allowLoopback: false, allowPrivate: false };
const LOOPBACK: TargetRules = { allowLoopback: true, allowPrivate: false };
const PRIVATE: TargetRules = { allowLoopback: false, allowPrivate: true };
const EVERYTHING: TargetRules = { allowLoopback: true, allowPrivate: true };

function refusal(text: string, rules: TargetRules): string {
  const result = checkWebhookUrl(text, rules);
  if (result.ok) throw new Error(`${text} was accepted`);
  return result.reason;
}

describe("webhooks: a malicious app registering webhook URLs", () => {
  describe("the URL itself", () => {
    it("accepts an https URL on a public host and hands back the parsed URL", () => {
      const result = checkWebhookUrl("https://hooks.example.com/idwallet?app=1", PUBLIC_ONLY);
      expect(result.ok).to.equal(true);
      if (result.ok) expect(result.url.href).to.equal("https://hooks.example.com/idwallet?app=1");
      expect(checkWebhookUrl("https://93.184.216.34/hook", PUBLIC_ONLY).ok).to.equal(true);
      expect(checkWebhookUrl("https://[2606:4700:4700::1111]/hook", PUBLIC_ONLY).ok).to.equal(true);
    });

    it("refuses plain http to a public host, even with every relaxation on", () => {
      expect(refusal("http://hooks.example.com/", EVERYTHING)).to.equal("the URL must use https");
      expect(refusal("http://93.184.216.34/", EVERYTHING)).to.equal("the URL must use https");
    });

    it("refuses plain http to a private address allowed by allowPrivate", () => {
      expect(checkWebhookUrl("https://10.0.0.1/", PRIVATE).ok).to.equal(true);
      expect(refusal("http://10.0.0.1/", PRIVATE)).to.equal("the URL must use https");
    });

    it("refuses other schemes", () => {
      expect(refusal("file:///etc/passwd", EVERYTHING)).to.equal("the URL must use https");
      expect(refusal("ftp://hooks.example.com/", EVERYTHING)).to.equal("the URL must use https");
      expect(refusal("gopher://127.0.0.1:6379/_FLUSHALL", EVERYTHING)).to.equal("the URL must use https");
    });

    it("refuses what is not an absolute URL", () => {
      expect(refusal("not a url", PUBLIC_ONLY)).to.equal("the URL is not a valid absolute URL");
      expect(refusal("/hooks/relative", PUBLIC_ONLY)).to.equal("the URL is not a valid absolute URL");
      expect(refusal("https://", PUBLIC_ONLY)).to.equal("the URL is not a valid absolute URL");
    });

    it("refuses a username or password in the URL", () => {
      const reason = "the URL must not contain a username or password";
      expect(refusal("https://user:secret@hooks.example.com/", PUBLIC_ONLY)).to.equal(reason);
      expect(refusal("https://user@hooks.example.com/", PUBLIC_ONLY)).to.equal(reason);
      expect(refusal("https://:secret@hooks.example.com/", PUBLIC_ONLY)).to.equal(reason);
    });

    it("refuses a fragment, even an empty one", () => {
      expect(refusal("https://hooks.example.com/#x", PUBLIC_ONLY)).to.equal("the URL must not contain a fragment");
      expect(refusal("https://hooks.example.com/#", PUBLIC_ONLY)).to.equal("the URL must not contain a fragment");
    });

    it("accepts 2048 characters and refuses 2049", () => {
      const base = "https://hooks.example.com/";
      expect(checkWebhookUrl(base + "a".repeat(2048 - base.length), PUBLIC_ONLY).ok).to.equal(true);
      expect(refusal(base + "a".repeat(2049 - base.length), PUBLIC_ONLY)).to.equal(
        "the URL must be at most 2048 characters",
      );
    });

    it("refuses a URL whose parsed form grows past 2048 characters (percent-encoding)", () => {
      const base = "https://hooks.example.com/";
      // 700 characters as typed; each "é" becomes "%C3%A9" in the parsed URL.
      expect(checkWebhookUrl(base + "é".repeat(200), PUBLIC_ONLY).ok).to.equal(true);
      expect(refusal(base + "é".repeat(700), PUBLIC_ONLY)).to.equal("the URL must be at most 2048 characters");
    });
  });

  describe("loopback", () => {
    it("accepts http://127.0.0.1 and http://localhost only with allowLoopback", () => {
      expect(checkWebhookUrl("http://127.0.0.1:8080/hook", LOOPBACK).ok).to.equal(true);
      expect(checkWebhookUrl("http://localhost:8080/hook", LOOPBACK).ok).to.equal(true);
      expect(checkWebhookUrl("http://[::1]:8080/hook", LOOPBACK).ok).to.equal(true);
      expect(refusal("http://127.0.0.1:8080/hook", PUBLIC_ONLY)).to.equal("the address 127.0.0.1 is loopback");
      expect(refusal("http://127.9.9.9/", PRIVATE)).to.equal("the address 127.9.9.9 is loopback");
    });

    it("refuses localhost names without allowLoopback, over https too", () => {
      expect(refusal("https://localhost/", PUBLIC_ONLY)).to.equal("the host localhost is loopback");
      expect(refusal("https://LOCALHOST./", PUBLIC_ONLY)).to.equal("the host localhost. is loopback");
      expect(refusal("https://evil.localhost/", PRIVATE)).to.equal("the host evil.localhost is loopback");
    });

    it("refuses [::1] and IPv4-mapped [::ffff:127.0.0.1] without allowLoopback", () => {
      expect(refusal("https://[::1]/", PUBLIC_ONLY)).to.equal("the address ::1 is loopback");
      expect(refusal("https://[::ffff:127.0.0.1]/", PRIVATE)).to.equal("the address 127.0.0.1 is loopback");
    });

    it("sees through odd IPv4 spellings of 127.0.0.1 (decimal, hex, octal)", () => {
      for (const spelling of ["2130706433", "0x7f.0.0.1", "0x7f.1", "017700000001", "0177.0.0.1", "127.1"]) {
        expect(refusal(`https://${spelling}/`, PUBLIC_ONLY), spelling).to.equal("the address 127.0.0.1 is loopback");
      }
    });

    it("refuses the deprecated IPv4-compatible [::127.0.0.1], which is no public address", () => {
      expect(refusal("https://[::127.0.0.1]/", EVERYTHING)).to.equal("the address ::7f00:1 is reserved");
    });
  });

  describe("private and link-local", () => {
    const cases: [string, string][] = [
      ["https://10.0.0.1/", "the address 10.0.0.1 is private"],
      ["https://172.16.0.1/", "the address 172.16.0.1 is private"],
      ["https://172.31.255.254/", "the address 172.31.255.254 is private"],
      ["https://192.168.1.1/", "the address 192.168.1.1 is private"],
      ["https://100.64.0.1/", "the address 100.64.0.1 is carrier-grade NAT"],
      ["https://[fc00::1]/", "the address fc00::1 is unique-local"],
      ["https://[fd12:3456::1]/", "the address fd12:3456::1 is unique-local"],
      ["https://[::ffff:10.0.0.1]/", "the address 10.0.0.1 is private"],
    ];

    it("refuses each by default, with a reason naming the address and its kind", () => {
      for (const [url, reason] of cases) expect(refusal(url, LOOPBACK), url).to.equal(reason);
    });

    it("accepts each with allowPrivate", () => {
      for (const [url] of cases) expect(checkWebhookUrl(url, PRIVATE).ok, url).to.equal(true);
    });

    it("refuses link-local and the cloud metadata services even with allowPrivate: they hand out credentials", () => {
      const metadata: [string, string][] = [
        ["https://169.254.169.254/latest/meta-data/", "the address 169.254.169.254 is link-local"],
        ["https://[fe80::1]/", "the address fe80::1 is link-local"],
        ["https://[::ffff:169.254.169.254]/", "the address 169.254.169.254 is link-local"],
        ["https://100.100.100.200/latest/meta-data/", "the address 100.100.100.200 is a cloud metadata service"],
        ["https://[fd00:ec2::254]/", "the address fd00:ec2::254 is a cloud metadata service"],
      ];
      for (const [url, reason] of metadata) {
        expect(refusal(url, EVERYTHING), url).to.equal(reason);
        expect(refusal(url, LOOPBACK), url).to.equal(reason);
      }
    });

    it("does not take 172.32.0.1 (just past 172.16/12) for private", () => {
      expect(checkWebhookUrl("https://172.32.0.1/", PUBLIC_ONLY).ok).to.equal(true);
    });
  });

  describe("never allowed, whatever the rules", () => {
    const cases: [string, string][] = [
      ["https://0.0.0.0/", "the address 0.0.0.0 is unspecified"],
      ["https://0/", "the address 0.0.0.0 is unspecified"],
      ["https://[::]/", "the address :: is unspecified"],
      ["https://224.0.0.1/", "the address 224.0.0.1 is multicast"],
      ["https://[ff02::1]/", "the address ff02::1 is multicast"],
      ["https://255.255.255.255/", "the address 255.255.255.255 is broadcast"],
      ["https://240.0.0.1/", "the address 240.0.0.1 is reserved"],
      ["https://192.0.2.1/", "the address 192.0.2.1 is reserved"],
      ["https://[2001:db8::1]/", "the address 2001:db8::1 is reserved"],
      ["https://[2002:a00:1::]/", "the address 2002:a00:1:: is 6to4, which embeds an IPv4 address"],
      ["https://[2002:7f00:1::]/", "the address 2002:7f00:1:: is 6to4, which embeds an IPv4 address"],
      ["https://[64:ff9b::a00:1]/", "the address 64:ff9b::a00:1 is NAT64, which embeds an IPv4 address"],
      ["https://[64:ff9b::7f00:1]/", "the address 64:ff9b::7f00:1 is NAT64, which embeds an IPv4 address"],
      ["https://[2001::1]/", "the address 2001::1 is Teredo, which embeds an IPv4 address"],
      ["https://[::ffff:0:a00:1]/", "the address ::ffff:0:a00:1 is IPv4-translated, which embeds an IPv4 address"],
      ["https://[100::1]/", "the address 100::1 is reserved"],
    ];

    it("refuses unspecified, multicast, broadcast, reserved and IPv4-embedding IPv6 addresses", () => {
      for (const [url, reason] of cases) expect(refusal(url, EVERYTHING), url).to.equal(reason);
    });
  });

  describe("isAllowedAddress, as the connect-time guard calls it with resolved addresses", () => {
    it("allows public unicast only by default", () => {
      expect(isAllowedAddress("8.8.8.8", PUBLIC_ONLY)).to.deep.equal({ ok: true });
      expect(isAllowedAddress("2606:4700:4700::1111", PUBLIC_ONLY)).to.deep.equal({ ok: true });
      expect(isAllowedAddress("127.0.0.1", PUBLIC_ONLY)).to.deep.equal({
        ok: false,
        reason: "the address 127.0.0.1 is loopback",
      });
      expect(isAllowedAddress("10.1.2.3", PUBLIC_ONLY)).to.deep.equal({
        ok: false,
        reason: "the address 10.1.2.3 is private",
      });
    });

    it("keeps loopback and private as separate permissions", () => {
      expect(isAllowedAddress("127.0.0.1", PRIVATE).ok).to.equal(false);
      expect(isAllowedAddress("::1", PRIVATE).ok).to.equal(false);
      expect(isAllowedAddress("10.1.2.3", LOOPBACK).ok).to.equal(false);
      expect(isAllowedAddress("127.0.0.1", LOOPBACK).ok).to.equal(true);
      expect(isAllowedAddress("10.1.2.3", PRIVATE).ok).to.equal(true);
    });

    it("judges an IPv4-mapped IPv6 answer as the IPv4 address it carries", () => {
      expect(isAllowedAddress("::ffff:127.0.0.1", PUBLIC_ONLY)).to.deep.equal({
        ok: false,
        reason: "the address 127.0.0.1 is loopback",
      });
      expect(isAllowedAddress("::ffff:8.8.8.8", PUBLIC_ONLY)).to.deep.equal({ ok: true });
    });

    it("judges a scoped link-local answer as link-local", () => {
      expect(isAllowedAddress("fe80::1%eth0", PUBLIC_ONLY).ok).to.equal(false);
    });

    it("refuses what is not an IP address", () => {
      expect(isAllowedAddress("hooks.example.com", EVERYTHING)).to.deep.equal({
        ok: false,
        reason: "hooks.example.com is not an IP address",
      });
    });
  });
});
