import { Wallet } from "ethers";
import request from "supertest";
import { CHAIN, PROVIDER, type Seeded, type TestService } from "./testService";

/** Who is calling, and with what. */
export type Caller =
  | "valid"
  | "no token"
  | "malformed token"
  | "expired token"
  | "expired token seen before"
  | "forged: another secret"
  | "forged: alg none"
  | "forged: payload swapped"
  | "a user token as the bearer"
  | "a disabled app's token"
  | "another app's valid token"
  | "another app's token with a valid proof"
  | "another user's proof"
  | "another number's phone token"
  | "a phone token bound to another app"
  | "blank auth from a non-test app";

/** The user proofs a request may carry. */
export interface Proofs {
  /** The seeded app's provider: alice's and bob's proof. */
  readonly alice: string;
  readonly bob: string;
  /** Phone-login tokens of two numbers. */
  readonly phone: string;
  readonly otherPhone: string;
  /** PHONE_USER's phone token from a verifyOTP another app authenticated: bound to that app. */
  readonly phoneBoundToOther: string;
}

/** Where the non-test app's own provider is, for blank `auth`. */
export const NON_TEST_PROVIDER = "beta";
/** The number whose phone token `Proofs.phone` is. */
export const PHONE_USER = "tel:14155550123";

/** What a request of a route is: method, path and body for a caller. */
export interface ProtectedRoute {
  readonly name: string;
  readonly method: "get" | "post" | "delete";
  readonly path: (seeded: Seeded) => string;
  /** The body for a caller (user-acting routes vary userId and auth by caller). */
  readonly body?: (caller: Caller, proofs: Proofs) => object;
  /** The user-acting routes: they take a user proof in `auth`. */
  readonly actsForUser?: boolean;
  /** What another app's valid token gets: [status, code], or a 2xx with the caller's own result. */
  readonly otherApp: readonly [number, string?];
  /**
   * A route whose valid call removes what it names: the path of one made for that call, so the seeded one stays for
   * the refused cells to prove they removed nothing.
   */
  readonly removes?: (service: TestService) => Promise<string>;
}

const HASH = `0x${"ab".repeat(32)}`;
const TARGET = "0x000000000000000000000000000000000000dEaD";
const TOKEN = "0x000000000000000000000000000000000000C0DE";
const HOOK = "https://hooks.example.com/matrix";

/** userId and auth of a user-acting request, by caller. */
function userFields(caller: Caller, proofs: Proofs): { userId: string; auth: string } {
  switch (caller) {
    case "another user's proof":
      return { userId: `${PROVIDER.name}:alice`, auth: proofs.bob };
    case "another number's phone token":
      return { userId: PHONE_USER, auth: proofs.otherPhone };
    case "a phone token bound to another app":
      return { userId: PHONE_USER, auth: proofs.phoneBoundToOther };
    case "another app's token with a valid proof":
      return { userId: `${PROVIDER.name}:alice`, auth: proofs.alice };
    case "blank auth from a non-test app":
      return { userId: `${NON_TEST_PROVIDER}:alice`, auth: "" };
    default:
      // The seeded app is in test mode and owns the provider: blank auth is its valid proof.
      return { userId: `${PROVIDER.name}:alice`, auth: "" };
  }
}

const txBody = (caller: Caller, proofs: Proofs) => ({
  ...userFields(caller, proofs),
  chain: CHAIN,
  to: [TARGET],
  value: ["0"],
  data: ["0x"],
});

/**
 * Every route that needs an app's bearer token: the wallet routes (signing, transactions and their status), the Safe
 * routes, the webhook endpoints, and the resolver when RESOLVER_REQUIRE_AUTH is on.
 */
export const PROTECTED_ROUTES: readonly ProtectedRoute[] = [
  {
    name: "POST /v1/kernel/sign",
    method: "post",
    path: () => "/v1/kernel/sign",
    body: (caller, proofs) => {
      const fields = userFields(caller, proofs);
      // Test mode never signs without a chain (the signature is valid on every chain): the owner sends a real proof.
      const auth = fields.auth === "" && fields.userId === `${PROVIDER.name}:alice` ? proofs.alice : fields.auth;
      return { ...fields, auth, hash: HASH };
    },
    actsForUser: true,
    otherApp: [403, "PROVIDER_NOT_OWNED"],
  },
  {
    name: "POST /v1/kernel/tx",
    method: "post",
    path: () => "/v1/kernel/tx",
    body: (caller, proofs) => ({ ...txBody(caller, proofs), delegatecall: 0 }),
    actsForUser: true,
    otherApp: [403, "PROVIDER_NOT_OWNED"],
  },
  {
    name: "GET /v1/kernel/tx/{id}",
    method: "get",
    path: (s) => `/v1/kernel/tx/${s.kernelTxId}`,
    otherApp: [404, "NOT_FOUND"],
  },
  {
    name: "GET /v1/kernel/tx",
    method: "get",
    path: () => `/v1/kernel/tx?userId=${PROVIDER.name}:alice&limit=100`,
    // Another app lists its own requests (none): checked not to show the first app's, even by their user's id.
    otherApp: [200],
  },
  {
    name: "POST /v1/base/tx",
    method: "post",
    path: () => "/v1/base/tx",
    body: txBody,
    actsForUser: true,
    otherApp: [403, "PROVIDER_NOT_OWNED"],
  },
  {
    name: "GET /v1/base/tx/{id}",
    method: "get",
    path: (s) => `/v1/base/tx/${s.baseTxId}`,
    otherApp: [404, "NOT_FOUND"],
  },
  {
    name: "POST /v1/{chain}/account",
    method: "post",
    path: () => `/v1/${CHAIN}/account`,
    body: () => ({ signers: [Wallet.createRandom().address] }),
    // Another app creates a Safe of its own: not a resource of the first app.
    otherApp: [202],
  },
  {
    name: "POST /v1/{chain}/accounts",
    method: "post",
    path: () => `/v1/${CHAIN}/accounts`,
    body: () => ({}),
    // Another app lists its own Safes (none): checked not to show the first app's.
    otherApp: [200],
  },
  {
    name: "POST /v1/{chain}/account/{address}/custom",
    method: "post",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/custom`,
    body: () => ({ to: TARGET, data: "0x1234" }),
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/transfer",
    method: "post",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/payout/transfer`,
    body: () => ({ to: TARGET, amount: "1" }),
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/disperse",
    method: "post",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/payout/disperse`,
    body: () => ({ transfers: [{ to: TARGET, amount: "1" }] }),
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "POST /v1/{chain}/account/{address}/payout/disperseNFT",
    method: "post",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/payout/disperseNFT`,
    body: () => ({ transfers: [{ token: TOKEN, to: TARGET, tokenId: "7" }] }),
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "GET /v1/{chain}/account/{address}/tx/{txUuid}",
    method: "get",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/tx/${s.safeTxId}`,
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "GET /v1/{chain}/account/{address}/txs",
    method: "get",
    path: (s) => `/v1/${CHAIN}/account/${s.safe}/txs`,
    otherApp: [403, "SAFE_NOT_OWNED"],
  },
  {
    name: "POST /v1/webhooks",
    method: "post",
    path: () => "/v1/webhooks",
    body: () => ({ url: HOOK, events: ["transaction.included"] }),
    // Another app registers an endpoint of its own.
    otherApp: [201],
  },
  {
    name: "GET /v1/webhooks",
    method: "get",
    path: () => "/v1/webhooks",
    // Another app lists its own endpoints: checked not to show the first app's.
    otherApp: [200],
  },
  {
    name: "DELETE /v1/webhooks/{id}",
    method: "delete",
    path: (s) => `/v1/webhooks/${s.webhookId}`,
    // As for an unknown id: another app learns nothing of the first app's endpoints.
    otherApp: [404, "NOT_FOUND"],
    removes: async ({ app, seeded }) => {
      const res = await request(app).post("/v1/webhooks").auth(seeded.token, { type: "bearer" }).send({ url: HOOK });
      if (res.status !== 201) throw new Error(`registering an endpoint to remove: ${res.status} ${res.text}`);
      return `/v1/webhooks/${res.body.id}`;
    },
  },
  {
    name: "POST /v1/resolver (RESOLVER_REQUIRE_AUTH)",
    method: "post",
    path: () => "/v1/resolver",
    body: () => ({ userIds: "github:alice" }),
    // Resolving touches no app's resources.
    otherApp: [200],
  },
];

/** What a bearer credential that does not authenticate gets, on every protected route (docs/auth.md). */
export const UNAUTHENTICATED: ReadonlyArray<readonly [Caller, string]> = [
  ["no token", "MISSING_TOKEN"],
  ["malformed token", "MALFORMED_TOKEN"],
  ["forged: another secret", "INVALID_TOKEN"],
  ["forged: alg none", "INVALID_TOKEN"],
  ["forged: payload swapped", "INVALID_TOKEN"],
  ["a user token as the bearer", "INVALID_TOKEN"],
  ["a disabled app's token", "APP_DISABLED"],
];

/** What the user-acting routes answer a valid app token with a proof that does not hold (docs/auth.md, "The auth proof"). */
export const BAD_PROOFS: ReadonlyArray<readonly [Caller, number, string]> = [
  ["another user's proof", 403, "PROOF_MISMATCH"],
  ["another number's phone token", 403, "PROOF_MISMATCH"],
  ["a phone token bound to another app", 403, "PROOF_WRONG_APP"],
  ["another app's token with a valid proof", 403, "PROVIDER_NOT_OWNED"],
  ["blank auth from a non-test app", 401, "PROOF_REQUIRED"],
];
