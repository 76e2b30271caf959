import {
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EC_POINT,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKK_EC,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
  CKR_USER_ALREADY_LOGGED_IN,
  CKU_USER,
  type Handle,
  type PKCS11,
  Pkcs11Error,
  type Template,
} from "pkcs11js";
import { CustodyError } from "../custodyError";
import { decodeEcPoint, isSecp256k1 } from "./ecKey";

/** The slot holding the token labelled `label` (token labels are 32 bytes padded with spaces), if exactly one does. */
export function findTokenSlot(pkcs11: PKCS11, label: string, description: string): Handle {
  const slots = pkcs11.C_GetSlotList(true).filter((slot) => pkcs11.C_GetTokenInfo(slot).label.trimEnd() === label);
  if (slots.length === 0) throw new CustodyError(`${description}: no token labelled "${label}"`);
  if (slots.length > 1) throw new CustodyError(`${description}: ${slots.length} tokens are labelled "${label}"`);
  return slots[0]!;
}

/**
 * Logs the application in as the token's user. PKCS#11 login is per application and token, not per session: when
 * another signer of this process is already logged in to the token the call succeeds without checking `pin`.
 */
export function logIn(pkcs11: PKCS11, session: Handle, pin: string): void {
  try {
    pkcs11.C_Login(session, CKU_USER, pin);
  } catch (error) {
    if (!(error instanceof Pkcs11Error && error.code === CKR_USER_ALREADY_LOGGED_IN)) throw error;
  }
}

/** Up to two objects matching `template` (two are enough to tell one from several). */
function findObjects(pkcs11: PKCS11, session: Handle, template: Template): Handle[] {
  pkcs11.C_FindObjectsInit(session, template);
  try {
    return pkcs11.C_FindObjects(session, 2);
  } finally {
    pkcs11.C_FindObjectsFinal(session);
  }
}

/** A secp256k1 key pair in a token: the private key's handle and the 65-byte uncompressed public key. */
export interface TokenKey {
  readonly privateKey: Handle;
  readonly publicKey: Buffer;
}

/**
 * The EC key pair labelled `label`: exactly one private key and one public key object with that CKA_LABEL, both on
 * secp256k1 (another curve's key would sign, but no Ethereum address could verify it).
 */
export function findSecp256k1Key(pkcs11: PKCS11, session: Handle, label: string, description: string): TokenKey {
  const one = (found: Handle[], what: string): Handle => {
    if (found.length === 1) return found[0]!;
    throw new CustodyError(`${description}: ${found.length === 0 ? "no" : "more than one"} ${what}`);
  };
  const ofClass = (objectClass: number): Template => [
    { type: CKA_CLASS, value: objectClass },
    { type: CKA_KEY_TYPE, value: CKK_EC },
    { type: CKA_LABEL, value: label },
  ];
  const privateKey = one(
    findObjects(pkcs11, session, ofClass(CKO_PRIVATE_KEY)),
    `EC private key labelled "${label}" in the token`,
  );
  const publicKeyObject = one(
    findObjects(pkcs11, session, ofClass(CKO_PUBLIC_KEY)),
    `EC public key labelled "${label}" in the token (the address is read from it)`,
  );
  for (const [handle, which] of [
    [privateKey, "private"],
    [publicKeyObject, "public"],
  ] as const) {
    const [params] = pkcs11.C_GetAttributeValue(session, handle, [{ type: CKA_EC_PARAMS }]);
    if (!params?.value || !isSecp256k1(params.value)) {
      const hex = params?.value?.toString("hex") ?? "none";
      throw new CustodyError(`${description}: the ${which} key is not on secp256k1 (CKA_EC_PARAMS ${hex})`);
    }
  }
  const [point] = pkcs11.C_GetAttributeValue(session, publicKeyObject, [{ type: CKA_EC_POINT }]);
  const publicKey = point?.value && decodeEcPoint(point.value);
  if (!publicKey) throw new CustodyError(`${description}: the public key's CKA_EC_POINT is not a secp256k1 point`);
  return { privateKey, publicKey };
}
