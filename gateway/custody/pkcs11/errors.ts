import { Pkcs11Error } from "pkcs11js";
import { CustodyError } from "../custodyError";

/** What an operator should look at for the return values a misconfigured or failing token gives most. */
const HINTS: Readonly<Record<string, string>> = {
  CKR_PIN_INCORRECT: "the PIN is wrong",
  CKR_PIN_LEN_RANGE: "the PIN is too short or too long",
  CKR_PIN_LOCKED: "the PIN is locked after too many wrong tries",
  CKR_PIN_EXPIRED: "the PIN has expired",
  CKR_USER_PIN_NOT_INITIALIZED: "the token's user PIN was never set",
  CKR_TOKEN_NOT_PRESENT: "the token is gone",
  CKR_DEVICE_REMOVED: "the token is gone",
  CKR_DEVICE_ERROR: "the token failed",
  CKR_SESSION_HANDLE_INVALID: "the session was closed",
  CKR_USER_NOT_LOGGED_IN: "the session is not logged in",
  CKR_KEY_FUNCTION_NOT_PERMITTED: "the key may not sign (CKA_SIGN is false)",
  CKR_MECHANISM_INVALID: "the token does not do CKM_ECDSA with this key",
};

/**
 * `error` from a token call as a CustodyError naming the signer and the step: `pkcs11:token=…;object=…: C_Login:
 * CKR_PIN_INCORRECT (the PIN is wrong)`. A CustodyError passes through. pkcs11js messages hold the return value
 * and the call's name, never its arguments, so no PIN reaches the message.
 */
export function tokenError(description: string, step: string, error: unknown): CustodyError {
  if (error instanceof CustodyError) return error;
  if (error instanceof Pkcs11Error) {
    const hint = HINTS[error.message];
    return new CustodyError(`${description}: ${step}: ${error.message}${hint ? ` (${hint})` : ""}`, error.message);
  }
  return new CustodyError(`${description}: ${step}: ${error instanceof Error ? error.message : String(error)}`);
}
