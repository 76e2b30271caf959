import { computeAddress, hexlify, keccak256, toUtf8Bytes } from "ethers";
import { CKF_SERIAL_SESSION, CKM_ECDSA, type Handle } from "pkcs11js";
import { CustodyError } from "../custodyError";
import type { CustodySigner } from "../custodySigner";
import { toRecoverableSignature } from "../recoverableSignature";
import type { Pkcs11Reference } from "../signerReference";
import { tokenError } from "./errors";
import { acquirePkcs11Module, type Pkcs11Module } from "./module";
import { SessionPool } from "./sessionPool";
import { findSecp256k1Key, findTokenSlot, logIn, type TokenKey } from "./token";

/**
 * Sessions a signer opens when not told. bench/custodySigners.ts on 2 cores: SoftHSM2 signs ~1,500/s on one session,
 * 1.3–1.6× that on two; four added under 10 % while filling all of libuv's four default worker threads (which file
 * and DNS calls share) and raising the event loop's p99 delay by half.
 */
export const DEFAULT_PKCS11_SESSIONS = 2;

// Signed once at load: proves the private key signs (CKA_SIGN, the mechanism) and pairs with the public key the
// address comes from, before the signer is trusted with anything.
const SELF_TEST_DIGEST = Buffer.from(keccak256(toUtf8Bytes("idwallet custody signer self-test")).slice(2), "hex");
// r ‖ s of a 256-bit curve, with room for a module that would ask for more.
const SIGNATURE_BUFFER_BYTES = 72;

/**
 * A signer for the secp256k1 key `reference` names in a PKCS#11 token, logged in with `pin` (not kept). Signs with
 * CKM_ECDSA on the digest inside the token, off the event loop, on up to `sessions` sessions in parallel.
 */
export async function openPkcs11Signer(
  reference: Pkcs11Reference,
  pin: string,
  options: { sessions?: number } = {},
): Promise<CustodySigner> {
  const { description } = reference;
  const count = options.sessions ?? DEFAULT_PKCS11_SESSIONS;
  if (!Number.isInteger(count) || count < 1) throw new CustodyError(`${description}: sessions must be 1 or more`);
  let module: Pkcs11Module;
  try {
    module = acquirePkcs11Module(reference.modulePath);
  } catch (error) {
    throw new CustodyError(`${description}: ${(error as Error).message}`);
  }
  const { pkcs11 } = module;
  const sessions: Handle[] = [];
  const closeAll = () => {
    // Closing the token's last session logs the application out of it; C_Logout would log out every other signer
    // of this process on the same token too.
    for (const session of sessions) {
      try {
        pkcs11.C_CloseSession(session);
      } catch {
        // gone with the token: nothing left to release
      }
    }
    module.release();
  };

  let key: TokenKey;
  let step = "C_GetSlotList";
  try {
    const slot = findTokenSlot(pkcs11, reference.token, description);
    step = "C_OpenSession";
    for (let i = 0; i < count; i++) sessions.push(pkcs11.C_OpenSession(slot, CKF_SERIAL_SESSION));
    step = "C_Login";
    logIn(pkcs11, sessions[0]!, pin);
    step = "finding the key";
    key = findSecp256k1Key(pkcs11, sessions[0]!, reference.object, description);
  } catch (error) {
    closeAll();
    throw tokenError(description, step, error);
  }

  const pool = new SessionPool(sessions);
  const closed = () => new CustodyError(`${description}: the signer is closed`);
  /** r ‖ s from the token; the input is a copy, since the module reads it on a worker thread. */
  const signInToken = (input: Buffer): Promise<Buffer> =>
    pool.use(async (session) => {
      try {
        pkcs11.C_SignInit(session, { mechanism: CKM_ECDSA }, key.privateKey);
        return await pkcs11.C_SignAsync(session, input, Buffer.alloc(SIGNATURE_BUFFER_BYTES));
      } catch (error) {
        throw tokenError(description, "C_Sign", error);
      }
    }, closed);

  try {
    const check = await signInToken(SELF_TEST_DIGEST);
    if (!toRecoverableSignature(check, SELF_TEST_DIGEST, key.publicKey)) {
      throw new CustodyError(`${description}: the key objects labelled "${reference.object}" are not one key pair`);
    }
  } catch (error) {
    await pool.drain();
    closeAll();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    address: computeAddress(hexlify(key.publicKey)),
    description,
    async sign(digest) {
      if (digest.length !== 32) throw new CustodyError(`${description}: a digest is 32 bytes, not ${digest.length}`);
      const input = Buffer.from(digest);
      const signature = toRecoverableSignature(await signInToken(input), input, key.publicKey);
      if (!signature) throw new CustodyError(`${description}: the token's signature does not verify with its key`);
      return signature;
    },
    close() {
      closing ??= pool.drain().then(closeAll);
      return closing;
    },
  };
}
