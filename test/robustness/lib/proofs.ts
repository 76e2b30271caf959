import { SignJWT } from "jose";
import { TEST_NOW } from "../../helpers/testApp";
import { PROVIDER } from "./testService";

const nowSeconds = Math.floor(TEST_NOW.getTime() / 1000);

/**
 * An `auth` proof of the seeded app's provider: an HS256 JWT whose `sub` is the username, as the app's identity
 * service would sign it; by default valid for an hour at the test clock, signed with the registered secret.
 */
export function providerProof(
  username: string,
  options: { expiresIn?: number; secret?: string } = {},
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(username)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + (options.expiresIn ?? 3600))
    .sign(new TextEncoder().encode(options.secret ?? PROVIDER.secret));
}
