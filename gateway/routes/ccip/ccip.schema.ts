import { z } from "zod";

/** POST /ccip body (EIP-3668): the resolver that asked and the callData of its OffchainLookup. */
export const CcipRequest = z
  .object({
    sender: z.string().meta({
      description: "The ENS resolver's address (any case)",
      example: "0x839ee6a8fd3db4557474ede4601aed96b48cb210",
    }),
    data: z.string().meta({ description: "callData of the OffchainLookup: resolve(bytes name, bytes data)" }),
  })
  .meta({ id: "CcipRequest" });

/** The gateway's answer (EIP-3668), for the resolver's resolveWithProof. */
export const CcipResponse = z
  .object({
    data: z.string().meta({ description: "abi.encode(bytes result, uint64 expires, bytes signature)" }),
  })
  .meta({ id: "CcipResponse" });
