/**
 * A signer could not be configured, loaded or used. The message names the setting or the signer's description and
 * never carries a PIN, password or key.
 */
export class CustodyError extends Error {
  override readonly name = "CustodyError";

  /**
   * @param code the token's return value (`CKR_PIN_INCORRECT`, …) when the token refused, else undefined
   */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}
