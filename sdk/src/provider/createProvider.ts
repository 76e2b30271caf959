import { type Hex, isHex, numberToHex, type TypedDataDefinition } from "viem";
import type { IdwalletClient } from "../client/createClient.js";
import { strictMessageHash } from "../client/signing.js";
import { strictTypedDataHash } from "../client/typedData.js";
import { IdwalletError } from "../errors.js";
import { callNode, FORWARDED_METHODS } from "./chainRpc.js";
import { ProviderRpcError, RPC_ERROR, toRpcError } from "./rpcError.js";
import {
  callOf,
  callsStatus,
  capabilities,
  receiptReader,
  refuseRequiredCapabilities,
  type RpcCall,
} from "./walletCalls.js";

/** One user's wallet on one chain, as an EIP-1193 provider sees it. */
export interface IdwalletProviderOptions {
  readonly client: IdwalletClient;
  readonly userId: string;
  /** The user's proof, or a function giving a current one (e.g. refreshed after a new phone login). */
  readonly auth: string | (() => string | Promise<string>);
  /** The service's chain name, e.g. `base` or `localhost`. */
  readonly chain: string;
  /** The chain's JSON-RPC URL for read methods; the service's published one (local chains) when omitted. */
  readonly rpcUrl?: string;
  readonly fetch?: typeof fetch;
  /** How long eth_sendTransaction waits for inclusion (default 120 000 ms). */
  readonly waitTimeoutMs?: number;
}

/** An EIP-1193 request. */
export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** An EIP-1193 provider backed by a user's idwallet: sends through the service, reads through the chain's node. */
export interface IdwalletProvider {
  request(args: RequestArguments): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): IdwalletProvider;
  removeListener(event: string, listener: (...args: unknown[]) => void): IdwalletProvider;
}

/** A JSON-RPC chain id (hex or decimal quantity) as a number to compare; anything else is a bad parameter. */
function chainIdOf(value: unknown): bigint {
  try {
    if (typeof value === "string" || typeof value === "number") return BigInt(value);
  } catch {
    // refused below
  }
  throw new ProviderRpcError(RPC_ERROR.invalidParams, `${String(value)} is not a chain id`);
}

/** The hash of what a caller asked to sign; input that no hash can be made of, or that hashers read apart, is -32602. */
function badParamsUnless(hash: () => Hex): Hex {
  try {
    return hash();
  } catch (error) {
    throw new ProviderRpcError(RPC_ERROR.invalidParams, (error as Error).message);
  }
}

/** Makes the EIP-1193 provider of `userId`'s wallet on `chain` (EIP-5792 batches included). */
export function createIdwalletProvider(options: IdwalletProviderOptions): IdwalletProvider {
  const { client, userId, chain } = options;
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const auth = async () => (typeof options.auth === "function" ? options.auth() : options.auth);
  let setup: Promise<{ address: Hex; chainId: number; rpcUrl: string | undefined; entryPoint?: Hex }> | undefined;
  const wallet = () =>
    (setup ??= (async () => {
      const [[user], networks] = await Promise.all([client.resolve([userId]), client.networks()]);
      const network = networks.networks.find((entry) => entry.name === chain);
      if (!user || !network) throw new ProviderRpcError(RPC_ERROR.unrecognizedChain, `unknown chain ${chain}`);
      return {
        address: user.accountAddress as Hex,
        chainId: network.chainId,
        rpcUrl: options.rpcUrl ?? network.rpcUrl,
        entryPoint: network.contractAddresses?.entryPoint as Hex | undefined,
      };
    })().catch((error: unknown) => {
      setup = undefined;
      throw error;
    }));

  const ownAddress = async (claimed: unknown) => {
    const { address } = await wallet();
    if (claimed !== undefined && (typeof claimed !== "string" || claimed.toLowerCase() !== address.toLowerCase())) {
      throw new ProviderRpcError(RPC_ERROR.unauthorized, `${String(claimed)} is not this provider's account`);
    }
    return address;
  };
  const sign = async (hash: Hex) =>
    (await client.signHash({ userId, auth: await auth(), chain, hash })).signature as Hex;
  const send = async (calls: readonly RpcCall[]) =>
    client.sendCalls({ userId, chain, auth: await auth(), calls: calls.map(callOf) });

  async function answer(method: string, params: readonly unknown[]): Promise<unknown> {
    switch (method) {
      case "eth_accounts":
      case "eth_requestAccounts":
        return [(await wallet()).address];
      case "eth_chainId":
        return numberToHex((await wallet()).chainId);
      case "wallet_switchEthereumChain": {
        const wanted = (params[0] as { chainId?: unknown } | undefined)?.chainId;
        if (wanted !== undefined && chainIdOf(wanted) === BigInt((await wallet()).chainId)) return null;
        throw new ProviderRpcError(RPC_ERROR.unrecognizedChain, `this provider serves only ${chain}`);
      }
      case "eth_sendTransaction": {
        const tx = (params[0] ?? {}) as RpcCall & { from?: string; chainId?: unknown };
        await ownAddress(tx.from);
        // As wallets do: a transaction meant for another chain is refused, not sent on this one.
        if (tx.chainId !== undefined && chainIdOf(tx.chainId) !== BigInt((await wallet()).chainId)) {
          throw new ProviderRpcError(RPC_ERROR.invalidParams, `chainId ${String(tx.chainId)} is not ${chain}'s`);
        }
        const accepted = await send([tx]);
        const ended = await client.waitForTransaction(accepted.id, { timeoutMs: options.waitTimeoutMs });
        if (ended.status !== "included" || !ended.success || !ended.transactionHash) {
          const reason = ended.error ? `${ended.error.code}: ${ended.error.message}` : "not included";
          throw new ProviderRpcError(RPC_ERROR.transactionRejected, `request ${ended.id} ${reason}`, ended);
        }
        return ended.transactionHash;
      }
      case "wallet_sendCalls":
        return sendCalls(params[0]);
      case "wallet_getCallsStatus":
        return getCallsStatus(params[0]);
      case "wallet_getCapabilities": {
        // EIP-5792: only for the account this provider is; only the chains asked for, when a list is given.
        await ownAddress(params[0]);
        const { chainId } = await wallet();
        const asked = params[1];
        const served = !Array.isArray(asked) || asked.some((id) => chainIdOf(id) === BigInt(chainId));
        return served ? capabilities(chainId) : {};
      }
      case "personal_sign": {
        await ownAddress(params[1]);
        const message = params[0];
        if (typeof message !== "string")
          throw new ProviderRpcError(RPC_ERROR.invalidParams, "the message must be a string");
        return sign(badParamsUnless(() => strictMessageHash(isHex(message) ? { raw: message } : message)));
      }
      case "eth_signTypedData_v4": {
        await ownAddress(params[0]);
        const typed = params[1];
        return sign(
          badParamsUnless(() =>
            strictTypedDataHash((typeof typed === "string" ? JSON.parse(typed) : typed) as TypedDataDefinition),
          ),
        );
      }
    }
    if (FORWARDED_METHODS.has(method)) {
      const { rpcUrl } = await wallet();
      if (!rpcUrl) throw new ProviderRpcError(RPC_ERROR.unsupportedMethod, `${method} needs the chain's rpcUrl`);
      return callNode(fetcher, rpcUrl, method, params);
    }
    throw new ProviderRpcError(RPC_ERROR.unsupportedMethod, `${method} is not supported by an idwallet`);
  }

  // EIP-5792: the batch is one UserOperation, all calls or none; its id is the service's request id.
  async function sendCalls(raw: unknown) {
    const request = (raw ?? {}) as { from?: string; chainId?: unknown; calls?: RpcCall[]; capabilities?: object };
    await ownAddress(request.from);
    const { chainId } = await wallet();
    if (request.chainId !== undefined && chainIdOf(request.chainId) !== BigInt(chainId)) {
      throw new ProviderRpcError(RPC_ERROR.unsupportedChainId, `this provider serves chain ${chainId} only`);
    }
    if (!Array.isArray(request.calls) || request.calls.length === 0) {
      throw new ProviderRpcError(RPC_ERROR.invalidParams, "wallet_sendCalls needs at least one call");
    }
    refuseRequiredCapabilities({ capabilities: request.capabilities, calls: request.calls });
    return { id: (await send(request.calls)).id };
  }

  // Only this account's batches on this chain: the app's token reads every request of the app, its other users' too.
  async function getCallsStatus(id: unknown) {
    const { address, chainId, rpcUrl, entryPoint } = await wallet();
    // An empty or dot-segment id would name another path of the API (`/v1/kernel/tx/` is the list of every request).
    if (typeof id !== "string" || id === "" || id === "." || id === "..") {
      throw new ProviderRpcError(RPC_ERROR.unknownBundleId, `no batch ${String(id)} of this account`);
    }
    const record = await client.getTransaction(id).catch((error: unknown) => {
      // Any 404: of no request, or (an id such as `..`) of no route.
      if (error instanceof IdwalletError && error.status === 404) return undefined;
      throw error;
    });
    if (!record || record.sender.toLowerCase() !== address.toLowerCase() || record.chain !== chain) {
      throw new ProviderRpcError(RPC_ERROR.unknownBundleId, `no batch ${String(id)} of this account`);
    }
    return callsStatus(record, chainId, receiptReader(fetcher, rpcUrl), entryPoint);
  }

  const provider: IdwalletProvider = {
    async request({ method, params }) {
      try {
        return await answer(method, Array.isArray(params) ? params : params === undefined ? [] : [params]);
      } catch (error) {
        throw toRpcError(error);
      }
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  return provider;
}
