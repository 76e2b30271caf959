import { expect } from "chai";
import { randomBytes, scryptSync } from "node:crypto";
import { generateClientSecret, hashClientSecret, verifyClientSecret } from "../../../gateway/storage/clientSecret";

/** A stored hash with explicit parameters, as an older or newer version of the code might have written it. */
const storedHash = (secret: string, N: number, r: number, p: number): string => {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N, r, p });
  return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
};

describe("storage: client secrets", () => {
  it("generates distinct 32-byte base64url secrets", () => {
    const secrets = new Set(Array.from({ length: 20 }, generateClientSecret));
    expect(secrets.size).to.equal(20);
    for (const secret of secrets) expect(Buffer.from(secret, "base64url")).to.have.length(32);
  });

  it("salts each hash, and verifies only the secret it was made from", async () => {
    const secret = generateClientSecret();
    const [a, b] = await Promise.all([hashClientSecret(secret), hashClientSecret(secret)]);
    expect(a).to.not.equal(b);
    expect(a).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(await verifyClientSecret(secret, a)).to.equal(true);
    expect(await verifyClientSecret(secret, b)).to.equal(true);
    expect(await verifyClientSecret(`${secret}x`, a)).to.equal(false);
    expect(await verifyClientSecret(secret, undefined)).to.equal(false);
  });

  it("uses the parameters written in the stored hash", async () => {
    expect(await verifyClientSecret("s3cret", storedHash("s3cret", 1024, 4, 2))).to.equal(true);
    expect(await verifyClientSecret("other", storedHash("s3cret", 1024, 4, 2))).to.equal(false);
  });

  it("treats a malformed or out-of-bounds stored hash as no match instead of throwing", async () => {
    const good = storedHash("s3cret", 1024, 8, 1);
    const [, , , , salt, key] = good.split("$");
    for (const stored of [
      "",
      "plain-text-secret",
      good.replace(/^scrypt/, "bcrypt"),
      `${good}$extra`,
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$${2 ** 18}$8$1$${salt}$${key}`, // N beyond the bound
      `scrypt$1024$64$1$${salt}$${key}`, // r beyond the bound
      `scrypt$1024$8$1$${salt}$`, // no key
    ]) {
      expect(await verifyClientSecret("s3cret", stored), stored).to.equal(false);
    }
  });
});
