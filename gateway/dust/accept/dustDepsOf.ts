import type { Config } from "../../config/schema";
import type { ChainCapabilitiesTable } from "../../accept/chainCapabilities";
import type { DustRepository } from "../dustRepository";
import { LastTransferCache } from "../chainReads";
import type { DustDeps } from "./dustService";
import type { Limits } from "../../limits/limits";
import { createDustViewLimits } from "../viewLimits";

/** How long a wallet's last Transfer of a token is remembered before the logs are read again. */
const LAST_TRANSFER_TTL_MS = 60_000;

/**
 * What the dust routes read from: the dust settings, the repository, the chains' capabilities, the clock and where
 * the wallet views' limits are counted.
 */
export function dustDepsOf(
  settings: Config["dust"],
  repository: DustRepository,
  capabilities: ChainCapabilitiesTable,
  clock: () => Date,
  limits: Limits,
): DustDeps {
  return {
    repository,
    capabilities,
    defaultChain: settings.chain,
    lookbackBlocks: settings.lookbackBlocks,
    priceMaxAgeSeconds: settings.priceMaxAgeSeconds,
    multicall3: settings.multicall3,
    lastTransfers: new LastTransferCache(LAST_TRANSFER_TTL_MS),
    clock,
    admitView: createDustViewLimits(settings, limits),
  };
}
