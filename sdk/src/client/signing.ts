import { hashMessage, hashTypedData, type SignableMessage, type TypedData, type TypedDataDefinition } from "viem";
import type { components } from "../generated/openapi.js";
import type { Exchange } from "./exchange.js";

/** The wallet's signature over a hash: EIP-1271, wrapped per ERC-6492 unless deployed on the named chain. */
export type SignResult = components["schemas"]["SignResponse"];

/** Who signs: the user, with their proof, and optionally the chain the signature is for. */
export interface SignerRequest {
  readonly userId: string;
  readonly auth: string;
  /** When the wallet is deployed on this chain, `signature` is the plain EIP-1271 one. */
  readonly chain?: string;
}

/** Signing with a user's wallet: a raw hash, an EIP-191 message, EIP-712 typed data. */
export function signingMethods(exchange: Exchange) {
  const signHash = (request: SignerRequest & { hash: `0x${string}` }) =>
    exchange.asApp((Authorization) =>
      exchange.api.POST("/v1/kernel/sign", {
        headers: { Authorization },
        body: {
          userId: request.userId,
          hash: request.hash,
          auth: request.auth,
          ...(request.chain ? { chain: request.chain } : {}),
        },
      }),
    );
  return {
    signHash,

    /** Signs an EIP-191 personal message (a string, or `{ raw }` bytes) as `personal_sign` would. */
    signMessage: (request: SignerRequest & { message: SignableMessage }) =>
      signHash({ ...request, hash: hashMessage(request.message) }),

    /** Signs EIP-712 typed data as `eth_signTypedData_v4` would. */
    signTypedData: <const T extends TypedData | Record<string, unknown>, P extends keyof T | "EIP712Domain">(
      request: SignerRequest & { typedData: TypedDataDefinition<T, P> },
    ) => signHash({ ...request, hash: hashTypedData(request.typedData) }),
  };
}
