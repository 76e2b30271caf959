/** The node answered a contract read, but not as the read expects (no contract there, a malformed answer): 502. */
export class ChainReadError extends Error {
  override readonly name: string = "ChainReadError";
}
