import { expect } from "chai";
import { createHmac } from "node:crypto";
import {
  generateClientSecret,
  hashClientSecret,
  isCurrentHash,
  verifyClientSecret,
} from "../../../gateway/auth/clientSecret";
import { scryptHash } from "../storage/builders";

describe("auth: client secrets", () => {
  it("generates distinct 32-byte base64url secrets", () => {
    const secrets = new Set(Array.from({ length: 20 }, generateClientSecret));
    expect(secrets.size).to.equal(20);
    for (const secret of secrets) expect(Buffer.from(secret, "base64url")).to.have.length(32);
  });

  it("stores HMAC-SHA256 under the fixed label, and verifies only the secret it was made from", async () => {
    const secret = generateClientSecret();
    const stored = hashClientSecret(secret);
    const hmac = createHmac("sha256", "idwallet client secret v1").update(secret).digest("base64url");
    expect(stored).to.equal(`hmac-sha256$${hmac}`);
    expect(isCurrentHash(stored)).to.equal(true);
    expect(await verifyClientSecret(secret, stored)).to.equal(true);
    expect(await verifyClientSecret(`${secret}x`, stored)).to.equal(false);
    expect(await verifyClientSecret(secret.slice(0, -1), stored)).to.equal(false);
    expect(await verifyClientSecret(secret, undefined)).to.equal(false);
  });

  it("still accepts an old scrypt hash, with the parameters written in it", async () => {
    const legacy = scryptHash("s3cret", 1024, 4, 2);
    expect(isCurrentHash(legacy)).to.equal(false);
    expect(await verifyClientSecret("s3cret", legacy)).to.equal(true);
    expect(await verifyClientSecret("other", legacy)).to.equal(false);
  });

  it("treats a malformed or out-of-bounds stored hash as no match instead of throwing", async () => {
    const good = scryptHash("s3cret", 1024, 8, 1);
    const [, , , , salt, key] = good.split("$");
    for (const stored of [
      "",
      "plain-text-secret",
      "s3cret",
      good.replace(/^scrypt/, "bcrypt"),
      `${good}$extra`,
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 18}$8$1$${salt}$${key}`, // N beyond the bound
      `scrypt$1024$64$1$${salt}$${key}`, // r beyond the bound
      `scrypt$1024$8$1$${salt}$`, // no key
      "hmac-sha256$", // no digest
      `hmac-sha256$${hashClientSecret("s3cret").slice(12, -2)}`, // a digest cut short
    ]) {
      expect(await verifyClientSecret("s3cret", stored), stored).to.equal(false);
    }
  });
});
