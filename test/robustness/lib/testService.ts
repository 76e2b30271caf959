import { testCustodySigner } from "../../helpers/keySigners";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Wallet } from "ethers";
import pino, { type Logger } from "pino";
import request from "supertest";
import { type ChainClient, createChainClients } from "../../../gateway/chains/clients";
import { createCcipGateway } from "../../../gateway/routes/ccip/ccipGateway";
import { CCIP_PREFIX } from "../../../gateway/routes/ccip/ccipHandler";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

/** The app-owned provider of the seeded app, and the HS256 secret its proofs are signed with. */
export const PROVIDER = { name: "acme", secret: "acme-proof-secret-of-at-least-32-chars" } as const;
/** The chain everything is served on here; its RPC is a closed port. */
export const CHAIN = "localhost";
/** A customer key of the seeded Safe. */
export const SIGNER = "0x00000000000000000000000000000000000000A1";
/** Safe 1.5.0 addresses: never called, requests are only accepted. */
const SAFE_CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;
const TARGET = "0x000000000000000000000000000000000000dEaD";

/** A TCP port nothing listens on: bound once by us, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Settings of a service where every route can do its work without a chain: transactions and Safe requests are
 * accepted for `localhost` (as if its worker ran), signing has a key, the CCIP gateway a signer, and the chain's RPC
 * (read by signing with a `chain` and by the dust routes) is a closed port, so a read fails at once as upstream.
 * Limits that would turn most fuzzed requests into 429s are raised, so the inputs reach validation.
 */
export async function serviceSettings(overrides: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return {
    chains: { [CHAIN]: { rpcUrl: `http://127.0.0.1:${await closedPort()}` } },
    rpcTimeoutMs: 1000,
    requestTimeoutMs: 5000,
    walletSignerKey: `0x${"3c".repeat(32)}`,
    relayerKey: `0x${"4b".repeat(32)}`,
    safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: SAFE_CONTRACTS },
    ens: {
      signerKeys: [`0x${"6d".repeat(32)}`],
      rateLimitPerMinute: 100_000_000,
      answersPerMinute: 100_000_000,
      answersPerNetworkPerMinute: 100_000_000,
    },
    resolver: { anonymousPerMinute: 100_000_000 },
    otp: { perIpPerHour: 100_000, perNetworkPerHour: 100_000, resendCooldownSeconds: 0 },
    authLimits: { perClientPerMinute: 100_000_000, perIpPerMinute: 100_000_000 },
    dust: { chain: CHAIN },
    transactions: { waitTimeoutMs: 50 },
    ...overrides,
  };
}

/**
 * What the seeded app owns, so requests can name real resources: its token, a Safe, a wallet and a Safe request, a
 * webhook endpoint.
 */
export interface Seeded {
  readonly appId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly token: string;
  readonly safe: string;
  readonly kernelTxId: string;
  readonly baseTxId: string;
  readonly safeTxId: string;
  readonly webhookId: string;
}

/**
 * The real app (fresh in-memory database) and the CCIP gateway behind one node:http server on a free port, routed as
 * the service's entry point routes them, with its connection timeouts; seeded with one test-mode app that owns the
 * provider `acme`, a Safe, one request of each kind and a webhook endpoint.
 */
export async function startTestService(options: { logger?: Logger; settings?: Record<string, unknown> } = {}) {
  const logger = options.logger ?? pino({ level: "silent" });
  let chains: ReadonlyMap<string, ChainClient> = new Map();
  // The service's own chain clients (timeouts, transport), built from its configuration as start-up builds them.
  const built = buildTestApp(await serviceSettings(options.settings), {
    chains: (config) => (chains = createChainClients(config)),
    txChains: [CHAIN],
    logger,
  });
  const [ccipKey] = built.config.ens.signerKeys;
  const ccipSigner = ccipKey === undefined ? undefined : testCustodySigner(ccipKey);
  const ccip = createCcipGateway(
    built.config,
    ccipSigner,
    () => TEST_NOW,
    logger,
    built.knownProviders,
    built.deps.limits,
  );
  const server: Server = createServer((req, res) =>
    ccip && req.url?.startsWith(CCIP_PREFIX) ? ccip(req, res) : built.app(req, res),
  );
  server.requestTimeout = built.config.requestTimeoutMs;
  server.headersTimeout = Math.min(built.config.requestTimeoutMs, 10_000);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const repositories = await built.repositories;
  const { app, clientSecret, token } = await built.appWithToken("seeded app", true);
  await repositories.providers.register(app.id, PROVIDER.name, hs256Provider(PROVIDER.secret));
  const post = (path: string, body: object) =>
    request(built.app).post(path).set("Authorization", `Bearer ${token}`).send(body);
  const call = { userId: `${PROVIDER.name}:alice`, chain: CHAIN, to: [TARGET], value: ["0"], data: ["0x"], auth: "" };
  const safe = await post(`/v1/${CHAIN}/account`, { signers: [SIGNER], saltNonce: "1" });
  const kernelTx = await post("/v1/kernel/tx", call);
  const baseTx = await post("/v1/base/tx", call);
  const safeTx = await post(`/v1/${CHAIN}/account/${safe.body.address}/payout/transfer`, {
    to: Wallet.createRandom().address,
    amount: "1",
  });
  const webhook = await post("/v1/webhooks", { url: "https://hooks.example.com/seeded" });
  for (const res of [safe, kernelTx, baseTx, safeTx, webhook]) {
    if (res.status >= 300) throw new Error(`seeding failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const seeded: Seeded = {
    appId: app.id,
    clientId: app.clientId,
    clientSecret,
    token,
    safe: safe.body.address,
    kernelTxId: kernelTx.body.id,
    baseTxId: baseTx.body.id,
    safeTxId: safeTx.body.txUuid,
    webhookId: webhook.body.id,
  };
  return {
    ...built,
    port,
    seeded,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const client of chains.values()) client.provider.destroy();
      built.close();
    },
  };
}

/** A running test service. */
export type TestService = Awaited<ReturnType<typeof startTestService>>;
