import { parsePhoneNumberWithError } from "libphonenumber-js/max";
import { InvalidRequestError } from "../../errors/apiError";

/** A phone number accepted for native login, in the two forms the service uses. */
export interface LoginPhone {
  /** E.164 digits without "+", the `tel:` username (design §3), e.g. `14155552671`. */
  readonly digits: string;
  /** E.164 with "+", as SMS providers take it, e.g. `+14155552671`. */
  readonly e164: string;
}

// "+", digits and the usual separators only: no letters (vanity numbers), no extensions.
const PHONE_CHARACTERS = /^\+[\d\s().-]{1,30}$/;
// Spec §4.5, §8: US and Canada only, with the +1 prefix.
const COUNTRIES: ReadonlySet<string> = new Set(["US", "CA"]);

/** 400 INVALID_PHONE: not a valid US or Canada number with "+1". */
export class InvalidPhoneError extends InvalidRequestError {
  constructor() {
    const detail = "Send a valid US or Canada phone number with the +1 prefix, e.g. +1 415 555 2671";
    super(detail, [{ pointer: "/phone", detail }], "INVALID_PHONE");
  }
}

/** Parses a login phone number (spec §4.5) with full libphonenumber metadata, or throws InvalidPhoneError. */
export function parseLoginPhone(input: string): LoginPhone {
  const trimmed = input.trim();
  if (!PHONE_CHARACTERS.test(trimmed)) throw new InvalidPhoneError();
  let parsed;
  try {
    parsed = parsePhoneNumberWithError(trimmed);
  } catch {
    throw new InvalidPhoneError();
  }
  if (parsed.countryCallingCode !== "1" || !COUNTRIES.has(parsed.country ?? "") || !parsed.isValid()) {
    throw new InvalidPhoneError();
  }
  return { digits: parsed.number.slice(1), e164: parsed.number };
}
