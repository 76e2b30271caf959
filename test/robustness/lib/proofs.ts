import { hs256Proof } from "../../helpers/providerProofs";
import { PROVIDER } from "./testService";

/**
 * An `auth` proof of the seeded app's provider: an HS256 JWT whose `sub` is the username, as the app's identity
 * service would sign it (with the registered issuer and audience); by default valid for an hour at the test clock,
 * signed with the registered secret.
 */
export function providerProof(
  username: string,
  options: { expiresIn?: number; secret?: string } = {},
): Promise<string> {
  return hs256Proof(options.secret ?? PROVIDER.secret, username, { expiresIn: options.expiresIn ?? 3600 });
}
