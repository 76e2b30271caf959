/**
 * Resolver request bodies for the load bench. Every id is new for the whole run (one counter), so no
 * cache anywhere could flatter a figure; kinds are mixed and some ids are spelled as clients type them.
 */

// 7 digits after the "1555" prefix: distinct for the first 10 million tel ids of a run.
const TEL_SPAN = 10_000_000;
// One id in this many is spelled non-canonically, so normalization (case, "@", "+", punctuation) is exercised.
const RAW_SPELLING_EVERY = 10;

/** The n-th user id of a run: `github:user<n>`, `tel:1555<7 digits>` or `email:u<n>@example.com` in turn. */
export function benchUserId(n: number): string {
  const raw = n % RAW_SPELLING_EVERY === 0;
  switch (n % 3) {
    case 0:
      return raw ? `GitHub:@User${n}` : `github:user${n}`;
    case 1: {
      const digits = String(n % TEL_SPAN).padStart(7, "0");
      return raw ? `tel:+1 (555) ${digits.slice(0, 3)}-${digits.slice(3)}` : `tel:1555${digits}`;
    }
    default:
      return raw ? `email:U${n}@Example.com` : `email:u${n}@example.com`;
  }
}

/** Hands out request bodies of `idsPerBody` ids each, never repeating an id. */
export class BodySource {
  private next = 0;

  /** The ids of the next body. */
  nextIds(idsPerBody: number): string[] {
    const ids = new Array<string>(idsPerBody);
    for (let i = 0; i < idsPerBody; i++) ids[i] = benchUserId(this.next++);
    return ids;
  }

  /** The JSON text of the next POST /v1/resolver body. */
  nextBody(idsPerBody: number): string {
    return JSON.stringify({ userIds: this.nextIds(idsPerBody).join(",") });
  }

  /** How many ids have been handed out. */
  get used(): number {
    return this.next;
  }
}
