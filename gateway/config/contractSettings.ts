import { z } from "zod";
import { Address } from "../chains/evmSchemas";

/** The addresses of the idwallet contracts on every chain (deterministic deployment: one address everywhere). */
export const ContractsConfig = z.object({
  entryPoint: Address.optional(),
  ownerAccount: Address.optional(),
  kernelFactory: Address,
  baseFactory: Address,
  sponsorPaymaster: Address.optional(),
  /** Wallet code 2.1: its CustodyPaymaster, and the KernelAccountCreator new kernel wallets start on it by. */
  custodyPaymaster: Address.optional(),
  kernelCreator: Address.optional(),
  /** Wallet code the owner account moved wallets to: chosen without a log query from block 0. */
  walletImplementations: z.array(Address).default([]),
  /** The ENS resolver of the domain (IdwalletResolver), shown in GET /v1/networks. */
  ensResolver: Address.optional(),
});
