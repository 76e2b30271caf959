import { Interface, dnsEncode, namehash } from "ethers";
import fc from "fast-check";
import { MAX_LOOKUP_BODY_BYTES } from "../../../gateway/ens/lookupLimits";
import { RECORDS } from "../../../gateway/ens/records";
import type { RouteRules } from "./answerRules";
import { addressLike, anyJson, anyText, field, hexBytes, shapedBody, wellFormed } from "./badInputs";
import { CHAIN, PROVIDER, type Seeded } from "./testService";
import { WEBHOOK_ROUTES } from "./webhookRoutes";

/** What the generated requests may name: the seeded app's resources and a few proofs. */
export interface Fixture {
  readonly seeded: Seeded;
  /** `auth` values: valid, expired, for another user, signed with another key, a phone-login token. */
  readonly proofs: readonly string[];
}

/** One endpoint under test. */
export interface Route {
  /** As the README names it, e.g. `POST /v1/kernel/tx`. */
  readonly name: string;
  readonly method: "GET" | "POST" | "DELETE";
  /** Path with `{param}`s, filled from `params` unless a test replaces them. */
  readonly template: string;
  readonly params: (fixture: Fixture) => Record<string, string>;
  /** bearer: required; optional: the resolver's; client: POST /v1/auth; none. */
  readonly auth: "bearer" | "optional" | "client" | "none";
  /** A valid-shaped body with random field values (POST routes), sent as `encoding`. */
  readonly body?: (fixture: Fixture) => fc.Arbitrary<Record<string, unknown>>;
  readonly encoding?: "json" | "form";
  /** A valid-shaped query with random values (GET routes). */
  readonly query?: fc.Arbitrary<Record<string, string>>;
  /** Valid-shaped path parameters with random values, %-encoded (GET and DELETE routes whose input is the path). */
  readonly shapedParams?: fc.Arbitrary<Record<string, string>>;
  /** Bytes a body may have: BODY_LIMIT (1 MB), or the CCIP gateway's own (twice its call-data cap, and 1 KiB). */
  readonly bodyLimit: number;
  readonly rules: RouteRules;
}

const MB = 1024 * 1024;
const CCIP_LIMIT = MAX_LOOKUP_BODY_BYTES;
const SAFE_RULES: RouteRules = { notServed: ["SAFE_NOT_CONFIGURED"] };

const chainLike = fc.oneof(
  fc.constantFrom(CHAIN, "eth", "matic", "base", "gor", "maticmum", "nowhere", "", "LOCALHOST", "localhost "),
  anyText(20),
);
const userIdLike = fc.oneof(
  fc.constantFrom(
    `${PROVIDER.name}:alice`,
    `${PROVIDER.name}:Bob`,
    `${PROVIDER.name}:`,
    "tel:+14155550123",
    "tel:123",
    "github:alice",
    "email:a@b.co",
    "other:alice",
    "nobody",
    ":",
  ),
  anyText(30).map((name) => `${PROVIDER.name}:${name}`),
  anyText(40),
);
const weiLike = fc.oneof(
  fc.bigInt({ min: 0n, max: 1n << 257n }).map((v) => v.toString()),
  fc.bigInt({ min: 0n, max: 1n << 257n }).map((v) => `0x${v.toString(16)}`),
  fc.constantFrom("0", "1", "-1", "1.5", "0x", "", "1e18", " 1", "０", "0x-1", "00"),
);
const hexLike = fc.oneof(hexBytes(0, 64), fc.constantFrom("0x", "0xabc", "0xZZ", "abcd", ""));
const proofLike = (fixture: Fixture) => fc.oneof(fc.constantFrom("", ...fixture.proofs), anyText(60));
const phoneLike = fc.oneof(
  fc.constantFrom(
    "+14155550123",
    "14155550123",
    "4155550123",
    "+1 (415) 555-0123",
    "+442071838750",
    "+1",
    "",
    "+1415555012345678",
    "+1\u0664\u0661\u0665",
  ),
  fc.stringMatching(/^\+?1?[0-9]{0,14}$/),
  anyText(30),
);
/** A listing's query values: page sizes in and out of range, statuses, cursors of every shape. */
const pageSizeLike = fc.oneof(
  fc.integer({ min: -5, max: 300 }).map(String),
  fc.constantFrom("", "1.5", "1e2", "0x10", " 5", "020", "٣"),
);
const statusLike = fc.constantFrom("queued", "submitted", "included", "failed", "QUEUED", "pending", "");
const cursorLike = fc.oneof(
  anyText(80),
  fc.tuple(fc.base64String({ maxLength: 120 }), fc.base64String({ maxLength: 30 })).map(([a, b]) => `${a}.${b}`),
);
const listPageQuery = { limit: pageSizeLike, status: statusLike, cursor: cursorLike };
const limitLike = fc.oneof(fc.integer({ min: -5, max: 300 }), fc.constantFrom(1.5, 1e309, "10", null));
const calls = fc.integer({ min: 0, max: 18 }).chain((n) =>
  fc.record({
    to: fc.array(addressLike, { minLength: n, maxLength: n }),
    value: fc.array(weiLike, { minLength: n, maxLength: n }),
    data: fc.array(hexLike, { minLength: n, maxLength: n }),
  }),
);
/** A transaction request: parallel arrays of one length most of the time, each field sometimes anything. */
const txBody = (fixture: Fixture, kernel: boolean) =>
  fc
    .tuple(
      shapedBody({
        userId: field(userIdLike),
        chain: field(chainLike),
        auth: field(proofLike(fixture)),
        to: field(fc.array(addressLike, { maxLength: 3 })),
        value: field(fc.array(weiLike, { maxLength: 3 })),
        data: field(fc.array(hexLike, { maxLength: 3 })),
        ...(kernel ? { delegatecall: field(fc.constantFrom(0, 1, 2, "1", true)) } : {}),
      }),
      fc.option(calls, { freq: 2 }),
    )
    .map(([body, parallel]) => (parallel ? Object.assign(body, parallel) : body));

const fungible = shapedBody({ token: field(addressLike), to: field(addressLike), amount: field(weiLike) });
const nft = shapedBody({
  standard: field(fc.constantFrom("erc721", "erc1155", "erc20", "")),
  token: field(addressLike),
  to: field(addressLike),
  tokenId: field(weiLike),
  amount: field(weiLike),
});

const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const labelLike = fc.oneof(
  fc.constantFrom("alice", "Alice", "15551234567", "at", "example", "com", "xn--nxa", "", "a".repeat(64)),
  anyText(12),
);
/** EIP-3668 call data: resolve(dnsName, record call) of random names and records, or bytes that only start like it. */
const ccipCallData: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.array(labelLike, { minLength: 0, maxLength: 4 }),
      fc.constantFrom("github", "tel", "email", "acme", "x"),
      fc.constantFrom("idwallet.eth", "other.eth", "eth", ""),
      fc.oneof(
        fc.constant("addr(bytes32)"),
        fc.constant("addr(bytes32,uint256)"),
        fc.constant("text"),
        fc.constant("contenthash"),
        hexBytes(0, 80),
      ),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      anyText(20),
    )
    .map(([labels, provider, domain, record, coinType, key]) => {
      const name = [...labels, provider, domain].filter((l) => l !== "").join(".");
      try {
        const node = namehash(name);
        const call =
          record === "addr(bytes32)"
            ? RECORDS.encodeFunctionData("addr(bytes32)", [node])
            : record === "addr(bytes32,uint256)"
              ? RECORDS.encodeFunctionData("addr(bytes32,uint256)", [node, coinType])
              : record === "text"
                ? RECORDS.encodeFunctionData("text", [node, key])
                : record === "contenthash"
                  ? RECORDS.encodeFunctionData("contenthash", [node])
                  : record;
        return RESOLVE.encodeFunctionData("resolve", [dnsEncode(name), call]);
      } catch {
        // A name ethers will not encode (an empty or over-long label): send its bytes raw after the selector.
        return `${RESOLVE.getFunction("resolve")!.selector}${Buffer.from(name).toString("hex")}`;
      }
    }),
  hexBytes(0, 200).map((bytes) => `${RESOLVE.getFunction("resolve")!.selector}${bytes.slice(2)}`),
  hexBytes(0, 100),
  anyText(40),
);

/** Path parameters of GET /ccip/{sender}/{data}.json from generated call data: what a wallet would request. */
const ccipGetParams: fc.Arbitrary<Record<string, string>> = fc.record({
  sender: addressLike,
  data: ccipCallData.map((d) => encodeURIComponent(wellFormed(d))),
});

/**
 * Routes the service mounts that these suites leave out on purpose, each with why: no input but a token of the
 * operator's, or a fixed document.
 */
export const NOT_FUZZED: Readonly<Record<string, string>> = {
  "GET /health": "operations: no input but the operator's optional token (the fault suite reads it)",
  "GET /metrics": "operations: no input but the operator's optional token",
  "GET /openapi.json": "the API reference: a fixed document",
  "GET /docs": "the API reference: a fixed page",
  "GET /docs/init.js": "the API reference: a fixed script",
};

/**
 * Every route the service mounts (CCIP gateway included) but those of NOT_FUZZED, with what a valid-shaped request
 * looks like. test/robustness/routeList.test.ts fails when a route is mounted without an entry here or there, or
 * listed here and not mounted.
 */
export const ROUTES: readonly Route[] = [
  {
    name: "POST /v1/auth",
    method: "POST",
    template: "/v1/auth",
    params: () => ({}),
    auth: "client",
    encoding: "form",
    body: ({ seeded }) =>
      shapedBody({
        grant_type: fc.oneof(fc.constantFrom("client_credentials", "password", ""), anyText(20)),
        client_id: fc.oneof(fc.constant(seeded.clientId), anyText(40), fc.string({ minLength: 190, maxLength: 600 })),
        client_secret: fc.oneof(
          fc.constant(seeded.clientSecret),
          fc.constant(`${seeded.clientSecret.slice(0, -1)}A`),
          anyText(60),
          fc.string({ minLength: 490, maxLength: 1000 }),
        ),
      }),
    bodyLimit: MB,
    rules: { oauth: true },
  },
  {
    name: "POST /v1/resolver",
    method: "POST",
    template: "/v1/resolver",
    params: () => ({}),
    auth: "optional",
    encoding: "json",
    body: () =>
      shapedBody({
        userIds: field(
          fc.oneof(
            fc.array(userIdLike, { maxLength: 20 }).map((ids) => ids.join(",")),
            fc
              .integer({ min: 990, max: 1010 })
              .map((n) => Array.from({ length: n }, (_, i) => `github:u${i}`).join(",")),
          ),
        ),
        accountType: field(fc.constantFrom("kernel", "base", "safe", "KERNEL", "")),
      }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /v1/networks",
    method: "GET",
    template: "/v1/networks",
    params: () => ({}),
    auth: "none",
    query: fc.record({ chain: anyText(10) }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "POST /functions/v1/signInWithOTP",
    method: "POST",
    template: "/functions/v1/signInWithOTP",
    params: () => ({}),
    auth: "none",
    encoding: "json",
    body: () => shapedBody({ phone: field(phoneLike) }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "POST /functions/v1/verifyOTP",
    method: "POST",
    template: "/functions/v1/verifyOTP",
    params: () => ({}),
    auth: "none",
    encoding: "json",
    body: () =>
      shapedBody({
        phone: field(phoneLike),
        token: field(
          fc.oneof(fc.stringMatching(/^[0-9]{6}$/), fc.constantFrom(" 123456 ", "12345", "1234567", "١٢٣٤٥٦")),
        ),
      }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "POST /v1/kernel/sign",
    method: "POST",
    template: "/v1/kernel/sign",
    params: () => ({}),
    auth: "bearer",
    encoding: "json",
    body: (fixture) =>
      shapedBody({
        userId: field(userIdLike),
        hash: field(fc.oneof(hexBytes(32), hexBytes(0, 40))),
        auth: field(proofLike(fixture)),
        chain: field(chainLike),
      }),
    bodyLimit: MB,
    // With a `chain`, signing reads whether the wallet is deployed there.
    rules: { readsChain: true },
  },
  {
    name: "POST /v1/kernel/tx",
    method: "POST",
    template: "/v1/kernel/tx",
    params: () => ({}),
    auth: "bearer",
    encoding: "json",
    body: (fixture) => txBody(fixture, true),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /v1/kernel/tx/{id}",
    method: "GET",
    template: "/v1/kernel/tx/{id}",
    params: ({ seeded }) => ({ id: seeded.kernelTxId }),
    auth: "bearer",
    query: fc.record({ wait: fc.constantFrom("true", "false", "1", "") }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /v1/kernel/tx",
    method: "GET",
    template: "/v1/kernel/tx",
    params: () => ({}),
    auth: "bearer",
    query: fc.record({ ...listPageQuery, userId: userIdLike, chain: chainLike }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "POST /v1/base/tx",
    method: "POST",
    template: "/v1/base/tx",
    params: () => ({}),
    auth: "bearer",
    encoding: "json",
    body: (fixture) => txBody(fixture, false),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /v1/base/tx/{id}",
    method: "GET",
    template: "/v1/base/tx/{id}",
    params: ({ seeded }) => ({ id: seeded.baseTxId }),
    auth: "bearer",
    query: fc.record({ wait: fc.constantFrom("true", "false", "yes") }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "POST /v1/{chain}/account",
    method: "POST",
    template: "/v1/{chain}/account",
    params: () => ({ chain: CHAIN }),
    auth: "bearer",
    encoding: "json",
    body: () =>
      shapedBody({
        signers: field(fc.array(addressLike, { maxLength: 25 })),
        saltNonce: field(weiLike),
      }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "POST /v1/{chain}/accounts",
    method: "POST",
    template: "/v1/{chain}/accounts",
    params: () => ({ chain: CHAIN }),
    auth: "bearer",
    encoding: "json",
    body: () =>
      shapedBody({
        limit: field(limitLike),
        cursor: field(
          fc.oneof(
            anyJson.map((v) => Buffer.from(JSON.stringify(v) ?? "").toString("base64url")),
            fc
              .record({ createdAt: anyText(30), address: fc.oneof(addressLike, anyText(10)) })
              .map((c) => Buffer.from(JSON.stringify(c)).toString("base64url")),
            anyText(40),
          ),
        ),
      }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "POST /v1/{chain}/account/{address}/custom",
    method: "POST",
    template: "/v1/{chain}/account/{address}/custom",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe }),
    auth: "bearer",
    encoding: "json",
    body: () =>
      shapedBody({
        to: field(addressLike),
        value: field(weiLike),
        data: field(hexLike),
        operation: field(fc.constantFrom(0, 1, 2, "0")),
      }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/transfer",
    method: "POST",
    template: "/v1/{chain}/account/{address}/payout/transfer",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe }),
    auth: "bearer",
    encoding: "json",
    body: () => fungible,
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/disperse",
    method: "POST",
    template: "/v1/{chain}/account/{address}/payout/disperse",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe }),
    auth: "bearer",
    encoding: "json",
    body: () =>
      shapedBody({
        transfers: field(
          fc.oneof(
            fc.array(fungible, { maxLength: 5 }),
            fc
              .integer({ min: 199, max: 202 })
              .map((n) =>
                Array.from({ length: n }, () => ({ to: "0x00000000000000000000000000000000000000B2", amount: "1" })),
              ),
          ),
        ),
      }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/disperseNFT",
    method: "POST",
    template: "/v1/{chain}/account/{address}/payout/disperseNFT",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe }),
    auth: "bearer",
    encoding: "json",
    body: () => shapedBody({ transfers: field(fc.array(nft, { maxLength: 5 })) }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "GET /v1/{chain}/account/{address}/tx/{txUuid}",
    method: "GET",
    template: "/v1/{chain}/account/{address}/tx/{txUuid}",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe, txUuid: seeded.safeTxId }),
    auth: "bearer",
    query: fc.record({ wait: fc.constantFrom("true", "false", "") }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "GET /v1/{chain}/account/{address}/txs",
    method: "GET",
    template: "/v1/{chain}/account/{address}/txs",
    params: ({ seeded }) => ({ chain: CHAIN, address: seeded.safe }),
    auth: "bearer",
    query: fc.record(listPageQuery, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: SAFE_RULES,
  },
  {
    name: "GET /api/{address}",
    method: "GET",
    template: "/api/{address}",
    params: () => ({ address: "0x00000000000000000000000000000000000000A1" }),
    auth: "none",
    shapedParams: fc.record({ address: addressLike }),
    query: fc.record({ chain: fc.oneof(chainLike, fc.constant(CHAIN)) }, { requiredKeys: [] }),
    bodyLimit: MB,
    // The portfolio is read from the chain (one Multicall3 eth_call).
    rules: { readsChain: true },
  },
  {
    name: "GET /api/all-orders",
    method: "GET",
    template: "/api/all-orders",
    params: () => ({}),
    auth: "none",
    query: fc.record(
      {
        limit: fc.oneof(fc.integer({ min: -2, max: 1002 }).map(String), anyText(8)),
        offset: fc.oneof(fc.integer({ min: -2, max: 1_000_002 }).map(String), anyText(8)),
      },
      { requiredKeys: [] },
    ),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /api/orders",
    method: "GET",
    template: "/api/orders",
    params: () => ({}),
    auth: "none",
    query: fc.record(
      { limit: fc.integer({ min: -2, max: 1002 }).map(String), offset: fc.constantFrom("0", "-0", "1e3", "0x10") },
      { requiredKeys: [] },
    ),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /ccip/{sender}/{data}.json",
    method: "GET",
    template: "/ccip/{sender}/{data}.json",
    params: () => ({ sender: "0x00000000000000000000000000000000000000e5", data: "0x9061b923" }),
    auth: "none",
    shapedParams: ccipGetParams,
    bodyLimit: CCIP_LIMIT,
    rules: {},
  },
  {
    name: "POST /ccip",
    method: "POST",
    template: "/ccip",
    params: () => ({}),
    auth: "none",
    encoding: "json",
    body: () =>
      shapedBody({
        sender: field(addressLike),
        data: field(ccipCallData),
        Sender: field(addressLike),
        DATA: field(ccipCallData),
      }),
    bodyLimit: CCIP_LIMIT,
    rules: {},
  },
  ...WEBHOOK_ROUTES,
];

/** The path of `route` with its parameters (defaults, or the given raw segments). */
export function pathOf(route: Route, params: Record<string, string>): string {
  return route.template.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? "");
}
