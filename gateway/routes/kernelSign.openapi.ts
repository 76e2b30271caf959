import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import { JSON_BODY_MEDIA_TYPE, problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { SignRequestBody, SignResponse } from "./kernelSign.schema";

const TAG: ApiTag = "Wallets";
const HASH = `0x${"ab".repeat(32)}`;
const SIGNATURE =
  "0xbb9b2f92e36c8025f0f2d5161d502ea5853c0a3158d35e6367fe36314f5ca7ac73d40c5fd1a82772ba8e468337f81f6389133170eb" +
  "dfc22b74bdb32b31ed22da1c";
/** ERC-6492 for a wallet not deployed yet: abi.encode(factory, its call data, SIGNATURE) ‖ the magic suffix. */
const WRAPPED =
  "0x000000000000000000000000cec3c4092e836f57fef220c11e29690fb504a6710000000000000000000000000000000000" +
  "00000000000000000000000000006000000000000000000000000000000000000000000000000000000000000000c0000000" +
  "0000000000000000000000000000000000000000000000000000000024fe8ca4af63689bd4bf337974aa2a7094f03c2cf134" +
  "966cd01cba8320c9a24ade678026160000000000000000000000000000000000000000000000000000000000000000000000" +
  "00000000000000000000000000000000000000000000000041bb9b2f92e36c8025f0f2d5161d502ea5853c0a3158d35e6367" +
  "fe36314f5ca7ac73d40c5fd1a82772ba8e468337f81f6389133170ebdfc22b74bdb32b31ed22da1c00000000000000000000" +
  "0000000000000000000000000000000000000000006492649264926492649264926492649264926492649264926492649264" +
  "926492";

/** POST /v1/kernel/sign (the kernelSign router) in the OpenAPI document. */
export function registerKernelSignPaths(registry: OpenAPIRegistry, bearer: string): void {
  registry.registerPath({
    method: "post",
    path: "/v1/kernel/sign",
    operationId: "signHash",
    tags: [TAG],
    summary: "Sign a hash with a user's wallet (EIP-1271; ERC-6492 before deployment)",
    description:
      "Needs the app's bearer token and the user's proof in `auth`. The signature is over the wallet's replay-safe " +
      "EIP-712 wrapping of the hash (domain: name 'idwallet Kernel', version '1', the wallet; no chain id), so it " +
      "holds on every chain where the wallet is deployed, whatever `chain` names: a blank `auth` is refused even " +
      "for an app in test mode (403 TEST_MODE_NOT_ALLOWED).",
    security: [{ [bearer]: [] }],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: SignRequestBody,
            example: { userId: EXAMPLE.userId, hash: HASH, auth: EXAMPLE.userToken },
          },
        },
      },
    },
    responses: {
      200: {
        description: "The signature",
        content: {
          "application/json": {
            schema: SignResponse,
            example: {
              userId: EXAMPLE.userId,
              accountAddress: EXAMPLE.wallet,
              hash: HASH,
              deployed: null,
              signature: WRAPPED,
              erc1271Signature: SIGNATURE,
            },
          },
        },
      },
      400: problem`${"INVALID_REQUEST"}, ${"INVALID_USER_ID"}, ${"NATIVE_LOGIN_UNAVAILABLE"}, ${"UNKNOWN_PROVIDER"},
        ${"UNKNOWN_CHAIN"}, ${"CHAIN_NOT_AVAILABLE"}`,
      401: problem`${"MISSING_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"}, ${"TOKEN_REVOKED"}, ${"APP_DISABLED"},
        ${"PROOF_REQUIRED"}, ${"INVALID_PROOF"}, ${"PROOF_EXPIRED"}, ${"PROOF_UNBOUND"}`,
      403: problem`${"PROOF_MISMATCH"}, ${"PROOF_WRONG_APP"}, ${"PROVIDER_NOT_OWNED"}, ${"PROVIDER_DISABLED"},
        ${"PROVIDER_REGISTRATION_OUTDATED"}, ${"TEST_MODE_NOT_ALLOWED"} (a blank auth from an app in test mode,
        whatever the chain)`,
      415: JSON_BODY_MEDIA_TYPE,
      503: problem`${"MAINTENANCE"}, ${"SIGNER_NOT_CONFIGURED"}`,
    },
  });
}
