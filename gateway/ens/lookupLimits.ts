import { ApiError } from "../errors/apiError";

// What one CCIP-read lookup may ask. Real clients ask one record (ethers, viem: addr or text), or a profile's worth in
// one multicall (about 30 records); the caps leave room for that and bound what one unauthenticated lookup costs: its
// decoding, its answer's size (so what the answer cache holds per entry) and the signature's input.

/** The largest lookup the gateway answers: call data of resolve(name, data), in bytes. */
export const MAX_LOOKUP_CALL_BYTES = 16 * 1024;
/** The most record calls one lookup may ask in a multicall. */
export const MAX_LOOKUP_RECORD_CALLS = 64;
/** A POST /ccip body holds the call data as hex, the sender and a little JSON: anything larger is refused unread. */
export const MAX_LOOKUP_BODY_BYTES = 2 * MAX_LOOKUP_CALL_BYTES + 1024;

/** 400 LOOKUP_TOO_LARGE: a lookup over one of the caps above. */
export class LookupTooLargeError extends ApiError {
  constructor(detail: string) {
    super(400, "LOOKUP_TOO_LARGE", "Lookup too large", detail);
  }
}
