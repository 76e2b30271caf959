import { publicKeyVerify } from "secp256k1";

/** CKA_EC_PARAMS of a secp256k1 key: the DER of its named curve's OID, 1.3.132.0.10 (SEC 2 §2.4.1). */
export const SECP256K1_EC_PARAMS: Buffer = Buffer.from("06052b8104000a", "hex");

const OCTET_STRING = 0x04;
const UNCOMPRESSED_POINT_BYTES = 65;

/** Whether CKA_EC_PARAMS names secp256k1 (the only curve an Ethereum key is on). */
export function isSecp256k1(ecParams: Uint8Array): boolean {
  return SECP256K1_EC_PARAMS.equals(ecParams);
}

/**
 * The 65-byte uncompressed point (04 ‖ x ‖ y) of a CKA_EC_POINT, or undefined if it is not a secp256k1 point.
 * PKCS#11 v2.40 §2.3.3: the value is the DER OCTET STRING of the point; some modules give the bare point, accepted too.
 */
export function decodeEcPoint(value: Uint8Array): Buffer | undefined {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.length);
  const wrapped = bytes[0] === OCTET_STRING && bytes[1] === UNCOMPRESSED_POINT_BYTES;
  const point = wrapped && bytes.length === UNCOMPRESSED_POINT_BYTES + 2 ? bytes.subarray(2) : bytes;
  if (point.length !== UNCOMPRESSED_POINT_BYTES || point[0] !== 0x04 || !publicKeyVerify(point)) return undefined;
  return Buffer.from(point);
}

/** CKA_EC_POINT for a 65-byte uncompressed point: its DER OCTET STRING. */
export function encodeEcPoint(point: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([OCTET_STRING, point.length]), point]);
}
