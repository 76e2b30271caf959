import createKeccakHash from "keccak";

/**
 * Keccak-256 (Ethereum's, not NIST SHA3-256) of `data`. The `keccak` package loads its prebuilt native
 * binding where one exists (about 3× faster than JavaScript, which matters on the resolver's hot path:
 * three hashes per id) and falls back to its own JavaScript implementation elsewhere.
 */
export const keccak256Bytes = (data: Uint8Array): Buffer =>
  createKeccakHash("keccak256")
    .update(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    .digest();
