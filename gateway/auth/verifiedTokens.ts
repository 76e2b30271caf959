import { LRUCache } from "lru-cache";

/** Most verified tokens remembered per kind: an app token, and a user token per active user. */
const MAX_REMEMBERED = 10_000;

/**
 * Tokens whose signature and claims were already checked, with what they proved, until they expire. An app sends
 * the same bearer token (and a user the same proof) with every request; a JWT cannot change, so checking it once
 * per process is enough, and its expiry is still enforced on every use.
 */
export class VerifiedTokens<T extends object> {
  private readonly cache = new LRUCache<string, { value: T; expiresAtMs: number }>({ max: MAX_REMEMBERED });

  constructor(private readonly clock: () => Date) {}

  /** What `token` proved, if it was verified here and has not expired since. */
  get(token: string): T | undefined {
    const entry = this.cache.get(token);
    if (!entry) return undefined;
    if (this.clock().getTime() < entry.expiresAtMs) return entry.value;
    this.cache.delete(token);
    return undefined;
  }

  /** Remembers a verified token that expires at `exp` (JWT seconds). */
  remember(token: string, value: T, exp: number): void {
    this.cache.set(token, { value, expiresAtMs: exp * 1000 });
  }
}
