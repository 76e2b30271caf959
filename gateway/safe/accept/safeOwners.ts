import { AbiCoder, ZeroAddress, getAddress, keccak256 } from "ethers";
import { InvalidRequestError } from "../../errors/apiError";

/** Most owners a Safe created here has, the operator included. */
export const MAX_SAFE_OWNERS = 20;

/**
 * The salt nonce the factory gets: the app's own, bound to the app. The same app gets the same address for the same
 * signers and saltNonce on every Safe chain; another app cannot claim that address on a chain where it is not
 * created yet (the owners and salt are public once deployed somewhere).
 */
export function appSaltNonce(appId: string, saltNonce: bigint): bigint {
  return BigInt(
    keccak256(AbiCoder.defaultAbiCoder().encode(["string", "string", "uint256"], ["idwallet:safe", appId, saltNonce])),
  );
}

/** Safe's sentinel of its owner list (OwnerManager SENTINEL_OWNERS): never an owner. */
const SENTINEL = "0x0000000000000000000000000000000000000001";

/** The owners of a new Safe: the signers (distinct, no zero or sentinel address) and then the operator. */
export function safeOwners(signers: readonly string[], operator: string): string[] {
  const owners = signers.map((s) => getAddress(s));
  const seen = new Set<string>();
  owners.forEach((owner, i) => {
    if (owner === ZeroAddress || owner === SENTINEL) {
      throw new InvalidRequestError("A signer cannot be the zero or sentinel address", [
        { pointer: `/signers/${i}`, detail: "not an owner address" },
      ]);
    }
    if (seen.has(owner))
      throw new InvalidRequestError(`${owner} is listed twice`, [{ pointer: `/signers/${i}`, detail: "duplicate" }]);
    if (owner === getAddress(operator)) {
      throw new InvalidRequestError("The operator is added as an owner by the service; do not list it", [
        { pointer: `/signers/${i}`, detail: "the operator's address" },
      ]);
    }
    seen.add(owner);
  });
  if (owners.length + 1 > MAX_SAFE_OWNERS) {
    throw new InvalidRequestError(
      `A Safe has at most ${MAX_SAFE_OWNERS} owners, the operator included`,
      [],
      "TOO_MANY_SIGNERS",
    );
  }
  return [...owners, getAddress(operator)];
}
