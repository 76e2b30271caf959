import { createIdwalletClient, type IdwalletClient, type UserLogin } from "@idwallet/client";
import { JsonRpcProvider } from "ethers";
import { type Chain, createPublicClient, defineChain, http } from "viem";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { lastSmsCode } from "./stackClients";

/**
 * What an idwallet provider's `wallet_getCapabilities` answers for its chain, whole: EIP-5792 `atomic` (and the
 * drafts' `atomicBatch`), ERC-7677 `paymasterService` not supported (the operator pays), `sponsoredGas`.
 */
export const WALLET_CAPABILITIES = {
  atomic: { status: "supported" },
  atomicBatch: { supported: true },
  paymasterService: { supported: false },
  sponsoredGas: { supported: true },
} as const;

/** A client of the stack's demo app, made from the built package as an app makes it; `fetch` to watch its requests. */
export const demoAppClient = (stack: LocalStack, fetcher?: typeof fetch): IdwalletClient =>
  createIdwalletClient({
    baseUrl: stack.apiUrl,
    clientId: stack.demoApp.clientId,
    clientSecret: stack.demoApp.clientSecret,
    ...(fetcher ? { fetch: fetcher } : {}),
  });

/** Logs `phone` in through the client's signInWithOtp and verifyOtp, the code read from the stack's SMS outbox. */
export async function clientPhoneLogin(stack: LocalStack, client: IdwalletClient, phone: string): Promise<UserLogin> {
  await client.signInWithOtp({ phone });
  return client.verifyOtp({ phone, code: lastSmsCode(stack) });
}

/** The stack's chain as viem knows chains (its id from the service's GET /v1/networks), and a public client on it. */
export async function stackChain(stack: LocalStack, client: IdwalletClient) {
  const network = (await client.networks()).networks.find((entry) => entry.name === "localhost")!;
  const chain: Chain = defineChain({
    id: network.chainId,
    name: "localhost",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [stack.rpcUrl] } },
  });
  return { chain, publicClient: createPublicClient({ chain, transport: http(stack.rpcUrl) }) };
}

/** Sends `wei` to `address` from the chain's first dev account (the stack's deployer, idle once it runs). */
export async function fund(stack: LocalStack, address: string, wei: bigint): Promise<void> {
  const node = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
  await (await (await node.getSigner(0)).sendTransaction({ to: address, value: wei })).wait();
  node.destroy();
}
