import type { Logger } from "pino";
import type { Config } from "../config/schema";
import { type NodeHandler, createCcipHandler } from "./ccipHandler";
import type { KnownProviders } from "../services/knownProviders";
import { createCcipSigner } from "../ens/ccipSigner";
import { createCcipService } from "../ens/ccipService";

/**
 * The CCIP-read gateway of the configured ENS domain, or undefined when no signing key is configured
 * (names then do not resolve through this service). The first key signs; the others may stay in the
 * resolver's signer set during a rotation. `providers` (the process's cache of registered providers) says
 * which providers have names: built-in ones, and registered ones while enabled.
 */
export function createCcipGateway(
  config: Config,
  clock: () => Date,
  logger: Logger,
  providers: Pick<KnownProviders, "hasNames" | "version">,
): NodeHandler | undefined {
  const [signingKey] = config.ens.signerKeys;
  if (signingKey === undefined) return undefined;
  const service = createCcipService({
    domain: config.ens.domain,
    kernelFactory: config.contracts.kernelFactory,
    signer: createCcipSigner(signingKey),
    ttlSeconds: config.ens.ttlSeconds,
    refreshMarginSeconds: config.ens.refreshMarginSeconds,
    clock,
    resolver: config.ens.resolver,
    hasNames: (provider) => providers.hasNames(provider),
    namesVersion: () => providers.version(),
  });
  return createCcipHandler({
    answer: service.answer,
    clock,
    refreshMarginSeconds: config.ens.refreshMarginSeconds,
    requestsPerMinute: config.ens.rateLimitPerMinute,
    trustProxy: config.trustProxy,
    logger,
  });
}
