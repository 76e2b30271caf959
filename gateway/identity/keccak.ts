import createKeccakHash from "keccak";

/** The `keccak` package's sponge: its native binding's class, or its JavaScript fallback's (same methods). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  /** Pads with Keccak's 0x01 (not SHA-3's 0x06) on the first squeeze, then squeezes `length` bytes. */
  squeeze(length: number): Buffer;
}

// Keccak-256: a 1088-bit rate and a 512-bit capacity.
const RATE = 1088;
const CAPACITY = 512;

// One sponge for every hash, re-initialized each time: the package's hash object is a stream whose construction
// cost half of a hash's time. The package exports no sponge class, so it is taken from a hash object; the service
// is single-threaded and a hash never yields, so no two hashes share it at once.
const sponge = new (
  (createKeccakHash("keccak256") as unknown as { _state: object })._state.constructor as new () => KeccakSponge
)();

/**
 * Keccak-256 (Ethereum's, not NIST SHA3-256) of `data`. The `keccak` package loads its prebuilt native
 * binding where one exists (about twice as fast as its JavaScript, which matters on the resolver's hot path:
 * three hashes per id) and falls back to its own JavaScript implementation elsewhere.
 */
export function keccak256Bytes(data: Uint8Array): Buffer {
  sponge.initialize(RATE, CAPACITY);
  sponge.absorb(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  return sponge.squeeze(32);
}
