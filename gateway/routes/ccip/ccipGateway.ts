import type { Logger } from "pino";
import type { Config } from "../../config/schema";
import type { CustodySigner } from "../../custody/custodySigner";
import { createCcipHandler } from "./ccipHandler";
import type { NodeHandler } from "../../http/nodeHandler";
import type { KnownProviders } from "../../identity/knownProviders";
import { createCcipSigner } from "../../ens/ccipSigner";
import { createCcipService } from "../../ens/ccipService";
import { createProcessLimits } from "../../limits/processLimits";
import type { Limits } from "../../limits/limits";

/**
 * The CCIP-read gateway of the configured ENS domain, signing with `signer` (CCIP_SIGNER, or the first of
 * CCIP_SIGNER_KEYS; the others may stay in the resolver's signer set during a rotation), or undefined when there is
 * none (names then do not resolve through this service). `providers` (the process's cache of registered providers)
 * says which providers have names: built-in ones, and registered ones while enabled. Its per-address limit of lookups is
 * counted per process: it protects the process, and a database write per ENS lookup would cost this hot read path most
 * of its throughput (docs/postgres.md, "Shared limits"). The answers it computes and signs for a client (cache misses,
 * what a lookup can make the service do) are counted in `sharedLimits`, across every process and instance.
 */
export function createCcipGateway(
  config: Config,
  signer: CustodySigner | undefined,
  clock: () => Date,
  logger: Logger,
  providers: Pick<KnownProviders, "hasNames" | "version">,
  sharedLimits: Limits,
): NodeHandler | undefined {
  if (signer === undefined) return undefined;
  const service = createCcipService({
    domain: config.ens.domain,
    kernelFactory: config.contracts.kernelFactory,
    signer: createCcipSigner(signer),
    ttlSeconds: config.ens.ttlSeconds,
    refreshMarginSeconds: config.ens.refreshMarginSeconds,
    clock,
    resolver: config.ens.resolver,
    hasNames: (provider) => providers.hasNames(provider),
    namesVersion: () => providers.version(),
    cacheBytes: config.ens.cacheMegabytes * 1024 * 1024,
  });
  return createCcipHandler({
    answer: service.answer,
    clock,
    refreshMarginSeconds: config.ens.refreshMarginSeconds,
    requestsPerMinute: config.ens.rateLimitPerMinute,
    limits: createProcessLimits(),
    answerLimits: sharedLimits,
    answersPerMinute: config.ens.answersPerMinute,
    answersPerNetworkPerMinute: config.ens.answersPerNetworkPerMinute,
    trustProxy: config.trustProxy,
    logger,
  });
}
