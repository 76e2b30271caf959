/**
 * Safe contract addresses for API tests whose chain answers nothing: the service needs them configured to take Safe
 * requests, and nothing is ever called at them.
 */
export const PLACEHOLDER_SAFE_CONTRACTS = {
  singleton: "0x1000000000000000000000000000000000000001",
  proxyFactory: "0x1000000000000000000000000000000000000002",
  fallbackHandler: "0x1000000000000000000000000000000000000003",
  multiSendCallOnly: "0x1000000000000000000000000000000000000004",
} as const;
