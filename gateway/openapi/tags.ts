/**
 * The API reference's groups (OpenAPI `tags`), declared once in the document in this order, so `/docs` lists the
 * operations by what they are for instead of one "default" list. Every operation names one of them.
 */
export const API_TAGS = [
  {
    name: "Wallets",
    description:
      "A user id's wallet: its address on every chain (no sign-up, no chain access), the chains and contracts it " +
      "lives on, and signatures by the wallet (EIP-1271, ERC-6492 before deployment).",
  },
  {
    name: "Transactions",
    description:
      "Calls sent from a user's wallet as ERC-4337 UserOperations, gas sponsored: accepted durably at once, " +
      "followed by id until included or failed.",
  },
  {
    name: "Auth",
    description: "An app's bearer token for its client id and secret (OAuth 2.0 client credentials, RFC 6749).",
  },
  {
    name: "Phone login",
    description:
      "The auth server: a code by SMS to a US/Canada number, exchanged for the user token that proves a tel: id.",
  },
  {
    name: "ENS gateway",
    description:
      "The CCIP-read gateway (EIP-3668) the ENS resolver sends lookups to: `<username>.<provider>.<domain>` " +
      "resolves to the user's wallet. Served by the HTTP server before the API, also during maintenance.",
  },
  {
    name: "Safe accounts",
    description:
      "1-of-n Safe accounts of an app (the customer's signers and the operator): created, listed, and sent " +
      "custom calls and payouts by the operator's relayer.",
  },
  {
    name: "Dust",
    description:
      "The public dust-order read interface: the small token balances a wallet holds that the operator sweeps, and " +
      "the orders doing it. Also served on DUST_PORT.",
  },
  {
    name: "Webhooks",
    description:
      "An app's webhook endpoints: told, signed per Standard Webhooks, when its requests are submitted, included " +
      "or failed.",
  },
  {
    name: "Operations",
    description: "For the operator: health of the database and each chain's RPC, and Prometheus metrics.",
  },
] as const;

/** The name of one of the reference's groups. */
export type ApiTag = (typeof API_TAGS)[number]["name"];
