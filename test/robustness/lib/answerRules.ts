import { ERROR_CODES, OAUTH_ERRORS as OAUTH_ERROR_NAMES } from "../../../gateway/errors/errorCodes";
import type { RawAnswer, RawRequest } from "./rawHttp";

/** The service's problem codes, from its error-code module (which the Errors table of docs/api.md is checked against). */
export function knownErrorCodes(): Set<string> {
  return new Set(ERROR_CODES.map((entry) => entry.code));
}

/** RFC 6749 §5.2 errors of POST /v1/auth (docs/auth.md); the problem's `code` is the same, upper case. */
export const OAUTH_ERRORS: readonly string[] = OAUTH_ERROR_NAMES;

/**
 * The upstream rule: the chain's RPC here is a closed port, so a route that reads the chain (signing with a `chain`,
 * the wallet's dust portfolio) answers 502/504 for an otherwise valid request. That is the documented upstream
 * condition, not bad input; such answers are allowed on exactly those routes and counted apart. Any other 5xx fails.
 */
export const UPSTREAM_CODES = new Set(["RPC_UNAVAILABLE", "RPC_TIMEOUT", "CHAIN_READ_FAILED"]);

/** What a route may answer beyond 4xx problems. */
export interface RouteRules {
  /** The route reads a chain: UPSTREAM_CODES are allowed. */
  readonly readsChain?: boolean;
  /** Documented 503s of a chain this deployment does not serve (e.g. SAFE_NOT_CONFIGURED), counted apart. */
  readonly notServed?: readonly string[];
  /** POST /v1/auth: a 400/401 also carries RFC 6749 `error`. */
  readonly oauth?: boolean;
}

/** A defect found by these suites and reported, not yet fixed: its answers are counted, not failed. */
interface KnownDefect {
  readonly id: string;
  readonly matches: (request: RawRequest, answer: RawAnswer, body: Record<string, unknown> | undefined) => boolean;
}

/**
 * Defects these suites found and that are not fixed yet, each matching only its own signature (its answers are
 * counted, not failed; anything else still fails). Empty: the ones found were fixed, and their tests run.
 */
export const KNOWN_DEFECTS: readonly KnownDefect[] = [];

/** How one answer was classed. */
export type Verdict =
  | { readonly kind: "ok" | "problem" | "upstream" | "notServed" | "parser" }
  | { readonly kind: "defect"; readonly id: string };

/**
 * Classes an answer, or throws naming what is wrong with it. Rules: status < 500 (save the upstream and not-served
 * codes above); every 4xx is an RFC 9457 problem (`application/problem+json`, `status` equal to the answer's, a
 * known `code`; for POST /v1/auth also RFC 6749 `error`). Answers written by node:http itself before any service code
 * runs (a request line or header section it cannot parse: 400; headers over its 16 KiB limit: 431; an Expect it does
 * not know: 417) carry no X-Request-Id and no body; they are counted as `parser`.
 */
export function judge(rules: RouteRules, known: ReadonlySet<string>, request: RawRequest, answer: RawAnswer): Verdict {
  const describe = () => `${answer.status} ${answer.body.toString("utf8").slice(0, 300)}`;
  if (answer.headers["x-request-id"] === undefined) {
    if ([400, 417, 431].includes(answer.status) && answer.body.length === 0) return { kind: "parser" };
    throw new Error(`an answer without X-Request-Id that is not node's own: ${describe()}`);
  }
  if (answer.status < 400) return { kind: "ok" };
  let body: Record<string, unknown> | undefined;
  if (request.method !== "HEAD") {
    try {
      body = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
    } catch {
      throw new Error(`error answer is not JSON: ${describe()}`);
    }
  }
  const defect = KNOWN_DEFECTS.find((d) => d.matches(request, answer, body));
  if (defect) return { kind: "defect", id: defect.id };
  if (!/^application\/problem\+json\b/.test(answer.headers["content-type"] ?? "")) {
    throw new Error(`error answer is not application/problem+json (${answer.headers["content-type"]}): ${describe()}`);
  }
  if (body === undefined) {
    // HEAD: the headers of the GET answer, no body to read a code from.
    if (answer.status < 500) return { kind: "problem" };
    if (rules.readsChain && [502, 504].includes(answer.status)) return { kind: "upstream" };
    throw new Error(`5xx for bad input: ${describe()}`);
  }
  const code = String(body.code);
  if (body.status !== answer.status) throw new Error(`problem status ${body.status} ≠ ${answer.status}: ${describe()}`);
  if (answer.status >= 500) {
    if (rules.readsChain && UPSTREAM_CODES.has(code)) return { kind: "upstream" };
    if (rules.notServed?.includes(code)) return { kind: "notServed" };
    throw new Error(`5xx for bad input: ${describe()}`);
  }
  const oauthCode = rules.oauth && OAUTH_ERRORS.includes(String(body.error)) ? String(body.error).toUpperCase() : "";
  if (!known.has(code) && code !== oauthCode) {
    throw new Error(`unknown problem code ${code}: ${describe()}`);
  }
  if (rules.oauth && [400, 401].includes(answer.status) && !OAUTH_ERRORS.includes(String(body.error))) {
    throw new Error(`POST /v1/auth ${answer.status} without an RFC 6749 error: ${describe()}`);
  }
  return { kind: "problem" };
}

/** Counts of one route's answers. */
interface Counts {
  inputs: number;
  /** 5xx answers other than the upstream and not-served ones (only known defects get this far). */
  fiveXX: number;
  /** The slowest answer, in ms. */
  slowest: number;
  ok: number;
  problem: number;
  upstream: number;
  notServed: number;
  parser: number;
  defects: Map<string, number>;
  codes: Set<string>;
}

const emptyCounts = (): Omit<Counts, "codes"> => ({
  inputs: 0,
  fiveXX: 0,
  slowest: 0,
  ok: 0,
  problem: 0,
  upstream: 0,
  notServed: 0,
  parser: 0,
  defects: new Map(),
});

/** Inputs tried and answers got, per route, for the summary lines. */
export class Tally {
  private readonly routes = new Map<string, Counts>();

  /** Records one answered input. */
  record(route: string, verdict: Verdict, status: number, ms: number, code?: string): void {
    let counts = this.routes.get(route);
    if (!counts) {
      counts = { ...emptyCounts(), codes: new Set() };
      this.routes.set(route, counts);
    }
    counts.inputs++;
    counts.slowest = Math.max(counts.slowest, ms);
    if (status >= 500 && verdict.kind !== "upstream" && verdict.kind !== "notServed") counts.fiveXX++;
    if (code) counts.codes.add(code);
    if (verdict.kind === "defect") counts.defects.set(verdict.id, (counts.defects.get(verdict.id) ?? 0) + 1);
    else counts[verdict.kind]++;
  }

  /** Codes answered, over every route. */
  codes(): Set<string> {
    return new Set([...this.routes.values()].flatMap((c) => [...c.codes]));
  }

  /** One line per route and a total. */
  lines(): string[] {
    const n = (value: number) => value.toLocaleString("en-US");
    const describe = (c: Omit<Counts, "codes">) => {
      const defects = [...c.defects.values()].reduce((a, b) => a + b, 0);
      return (
        `${n(c.inputs)} inputs, ${n(c.fiveXX)} 5xx (2xx ${n(c.ok)}, 4xx ${n(c.problem)}, ` +
        `upstream 502/504 ${n(c.upstream)}, not served 503 ${n(c.notServed)}, node parser ${n(c.parser)}, ` +
        `known defects ${n(defects)}; slowest ${Math.ceil(c.slowest)} ms)`
      );
    };
    const total = emptyCounts();
    const lines = [...this.routes].map(([route, c]) => {
      for (const key of ["inputs", "fiveXX", "ok", "problem", "upstream", "notServed", "parser"] as const) {
        total[key] += c[key];
      }
      total.slowest = Math.max(total.slowest, c.slowest);
      for (const [id, count] of c.defects) total.defects.set(id, (total.defects.get(id) ?? 0) + count);
      return `bad input: ${route}: ${describe(c)}`;
    });
    lines.push(`bad input: total ${describe(total)}`);
    for (const [id, count] of total.defects) lines.push(`bad input: known defect "${id}": ${n(count)} answers`);
    return lines;
  }
}
