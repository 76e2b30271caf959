import { type Hex, hashMessage, type SignableMessage, type TypedData, type TypedDataDefinition } from "viem";
import { unexpectedAnswer } from "../errors.js";
import type { components } from "../generated/openapi.js";
import type { Exchange } from "./exchange.js";
import { strictTypedDataHash } from "./typedData.js";

/** The wallet's signature over a hash: EIP-1271, wrapped per ERC-6492 unless deployed on the named chain. */
export type SignResult = components["schemas"]["SignResponse"];

/** Who signs: the user, with their proof, and optionally the chain the signature is for. */
export interface SignerRequest {
  readonly userId: string;
  readonly auth: string;
  /** When the wallet is deployed on this chain, `signature` is the plain EIP-1271 one. */
  readonly chain?: string;
}

/**
 * The EIP-191 hash of a message (viem's hashMessage), refusing raw bytes written as an odd number of hex digits: viem
 * pads those at the front of the whole prefixed message, so the hash signed would not start with EIP-191's 0x19 byte.
 */
export function strictMessageHash(message: SignableMessage): Hex {
  if (typeof message !== "string" && typeof message?.raw === "string" && !/^0x([0-9a-fA-F]{2})*$/.test(message.raw)) {
    throw new TypeError(`raw message ${message.raw} is not whole bytes of hex`);
  }
  return hashMessage(message);
}

/** Signing with a user's wallet: a raw hash, an EIP-191 message, EIP-712 typed data. */
export function signingMethods(exchange: Exchange) {
  const signHash = async (request: SignerRequest & { hash: `0x${string}` }) => {
    const signed = await exchange.asApp((Authorization) =>
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
    // The answer names the hash it signed: another one's signature is never handed on as this hash's.
    if (signed.hash.toLowerCase() !== request.hash.toLowerCase()) {
      throw unexpectedAnswer(`the service signed ${signed.hash}, not ${request.hash}`);
    }
    return signed;
  };
  return {
    signHash,

    /** Signs an EIP-191 personal message (a string, or `{ raw }` bytes) as `personal_sign` would. */
    signMessage: async (request: SignerRequest & { message: SignableMessage }) =>
      signHash({ ...request, hash: strictMessageHash(request.message) }),

    /** Signs EIP-712 typed data as `eth_signTypedData_v4` would; typed data hashers would read apart is refused. */
    signTypedData: async <const T extends TypedData | Record<string, unknown>, P extends keyof T | "EIP712Domain">(
      request: SignerRequest & { typedData: TypedDataDefinition<T, P> },
    ) => signHash({ ...request, hash: strictTypedDataHash(request.typedData as TypedDataDefinition) }),
  };
}
