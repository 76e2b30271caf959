export { createIdwalletClient, type IdwalletClient, type IdwalletClientOptions } from "./client/createClient.js";
export type { AppCredentials } from "./client/appToken.js";
export type { IdwalletApi } from "./client/exchange.js";
export type { ResolvedUser, UserLogin } from "./client/identity.js";
export type { Call, TxStatus, WaitOptions, WalletRequest } from "./client/transactions.js";
export { isFinal } from "./client/transactions.js";
export type { SafeTransactionListQuery, TransactionListQuery } from "./client/listings.js";
export type { SignResult, SignerRequest } from "./client/signing.js";
export type { SafeAccount, SafeTarget, SafeTxStatus } from "./client/safes.js";
export { IdwalletError, WaitTimeoutError, UNEXPECTED_RESPONSE, type Problem, type ProblemCode } from "./errors.js";
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
} from "./webhooks/verifyWebhook.js";
export type { paths, components, webhooks } from "./generated/openapi.js";
export {
  createIdwalletProvider,
  type IdwalletProvider,
  type IdwalletProviderOptions,
  type RequestArguments,
} from "./provider/createProvider.js";
export { ProviderRpcError, RPC_ERROR } from "./provider/rpcError.js";
export { toIdwalletAccount, type IdwalletAccountOptions } from "./account/idwalletAccount.js";
