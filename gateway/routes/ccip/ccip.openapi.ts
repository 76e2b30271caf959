import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { problemResponse as problem } from "../../openapi/problem.schema";
import type { ApiTag } from "../../openapi/tags";
import { CcipRequest, CcipResponse } from "./ccip.schema";

const TAG: ApiTag = "ENS gateway";

/** The resolver's OffchainLookup for addr(alice.github.idwallet.eth): resolve(dnsEncode(name), addr(namehash)). */
const lookup = {
  sender: "0x839ee6a8fd3db4557474ede4601aed96b48cb210",
  data:
    "0x9061b923000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000" +
    "0000000000000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000" +
    "1b05616c6963650667697468756208696477616c6c6574036574680000000000000000000000000000000000000000000000" +
    "0000000000000000000000000000243b3b57de6c43b033d7ee3aad81b17cce343b96c99baf83be5f8474de35026b79feb550" +
    "8000000000000000000000000000000000000000000000000000000000",
};
/** abi.encode(result: alice's wallet, expires, the gateway's signature). */
const answer = {
  data:
    "0x00000000000000000000000000000000000000000000000000000000000000600000000000000000000000000000000000" +
    "00000000000000000000006b02da6c00000000000000000000000000000000000000000000000000000000000000a0000000" +
    "00000000000000000000000000000000000000000000000000000000200000000000000000000000004dee6cfcf2bdd96c74" +
    "09c5dcaa251c1e3c2a6369000000000000000000000000000000000000000000000000000000000000004191f681beb2daae" +
    "c305414b190fe4e7ef8b3cbe75f77d35b54cab338d9e14ad2840c9a3419655f70eba6dd85702a520d3838e7ae166cfcbda2d" +
    "53aeef2e6e54521b00000000000000000000000000000000000000000000000000000000000000",
};

/**
 * The CCIP-read gateway (EIP-3668) in the OpenAPI document. It is served by the HTTP server ahead of the express app
 * (gateway/server.ts), not by an express router, so the route↔document test leaves it out.
 */
export function registerCcipPaths(registry: OpenAPIRegistry): void {
  const ccipResponses = {
    200: {
      description: "The signed answer",
      content: { "application/json": { schema: CcipResponse, example: answer } },
    },
    400: problem`${"INVALID_SENDER"}, ${"INVALID_CALL_DATA"}, ${"UNSUPPORTED_CALL"}, ${"INVALID_NAME"},
      ${"UNKNOWN_RESOLVER"}, ${"LOOKUP_TOO_LARGE"}, ${"MALFORMED_JSON"}`,
    413: problem`${"PAYLOAD_TOO_LARGE"}`,
    429: problem`${"RATE_LIMITED"} (with Retry-After)`,
  };
  registry.registerPath({
    method: "get",
    path: "/ccip/{sender}/{data}.json",
    operationId: "resolveCcipRead",
    security: [{}],
    tags: [TAG],
    summary: "ENS CCIP-read gateway (EIP-3668), GET form",
    description: "Answers the ENS resolver's lookup for a name under the ENS domain. Served while in maintenance.",
    request: { params: z.object({ sender: z.string(), data: z.string() }) },
    responses: ccipResponses,
  });
  registry.registerPath({
    method: "post",
    path: "/ccip",
    operationId: "resolveCcipReadByPost",
    security: [{}],
    tags: [TAG],
    summary: "ENS CCIP-read gateway (EIP-3668), POST form",
    request: { body: { required: true, content: { "application/json": { schema: CcipRequest, example: lookup } } } },
    responses: ccipResponses,
  });
}
