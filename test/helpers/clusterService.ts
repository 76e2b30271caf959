import { request } from "node:http";
import { Wallet } from "ethers";
import type { prepareServiceOnChain, ServiceKeys } from "./serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "./serviceProcess";

/** The fields of the service's JSON log lines these tests read. */
export interface ClusterLogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly worker?: number;
  readonly workers?: number;
  readonly req?: { readonly id: string };
}

/** An answer of the API, and the HTTP worker that served it. */
export interface ClusterAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly worker: number;
}

/** Keys nobody else knows (private keys), so finding one anywhere means the service put it there. */
export const randomServiceKeys = (): ServiceKeys => ({
  walletSigner: Wallet.createRandom().privateKey,
  sponsorSigner: Wallet.createRandom().privateKey,
  relayer: Wallet.createRandom().privateKey,
  safeOperator: Wallet.createRandom().privateKey,
});

/** Each key's address. */
export const addressesOf = (keys: ServiceKeys): Record<keyof ServiceKeys, string> => ({
  walletSigner: new Wallet(keys.walletSigner).address,
  sponsorSigner: new Wallet(keys.sponsorSigner).address,
  relayer: new Wallet(keys.relayer).address,
  safeOperator: new Wallet(keys.safeOperator).address,
});

/**
 * The service with WORKERS=2 in its own process on the prepared chain (its own keys from `setup.env`), once both HTTP
 * workers listen; `api` sends each request on a connection of its own, so the cluster hands them to the workers in
 * turn, and says which worker served it (from the log).
 */
export async function startClusterService(setup: Awaited<ReturnType<typeof prepareServiceOnChain>>) {
  const lines: ClusterLogLine[] = [];
  const waiters: { test: (l: ClusterLogLine) => boolean; resolve: (l: ClusterLogLine) => void }[] = [];
  /** The first log line that passes `test`, logged already or to come. */
  const waitFor = (test: (l: ClusterLogLine) => boolean) =>
    new Promise<ClusterLogLine>((resolve) => {
      const seen = lines.find(test);
      if (seen) resolve(seen);
      else waiters.push({ test, resolve });
    });
  const service: ServiceProcess = await startServiceProcess(
    { ...setup.env(setup.chain.rpcUrl, { LOG_LEVEL: "info" }), WORKERS: "2" },
    {
      onLine: (text) => {
        const line = JSON.parse(text) as ClusterLogLine;
        lines.push(line);
        for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve(line);
      },
    },
  );
  await waitFor((l) => l.msg === "idwallet listening" && l.workers === 2);
  /** The pid of HTTP worker `worker` (1, 2, then each replacement), once it listens. */
  const workerPid = async (worker: number) =>
    (await waitFor((l) => l.msg === "idwallet listening" && l.worker === worker)).pid!;

  let count = 0;
  const api = async (method: string, route: string, body?: unknown): Promise<ClusterAnswer> => {
    const requestId = `cluster-test-${++count}`;
    const answer = await new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request(`${service.url}${route}`, {
        method,
        agent: false,
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${setup.appToken}`,
          "X-Request-Id": requestId,
        },
      });
      req.on("error", reject).on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
    const { worker } = await waitFor((l) => l.req?.id === requestId);
    return { ...answer, worker: worker! };
  };
  return { service, primary: service.pid, waitFor, workerPid, api };
}

/** A service started by startClusterService. */
export type ClusterService = Awaited<ReturnType<typeof startClusterService>>;

/** Polls `check` until it holds; fails naming `what` after a minute. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A /v1/kernel/sign answer. */
export interface KernelSignAnswer {
  readonly userId: string;
  readonly accountAddress: string;
  readonly hash: string;
  readonly chain?: string;
  readonly deployed: boolean | null;
  readonly signature: string;
  readonly erc1271Signature: string;
}

/** POST /v1/kernel/sign for `userId`, proved with the login token of its canonical form `canonical`; expects 200. */
export async function kernelSign(
  cluster: ClusterService,
  setup: Awaited<ReturnType<typeof prepareServiceOnChain>>,
  request: { userId: string; canonical: string; hash: string; chain?: string },
): Promise<{ answer: KernelSignAnswer; worker: number }> {
  const { userId, canonical, hash, chain } = request;
  const res = await cluster.api("POST", "/v1/kernel/sign", {
    userId,
    hash,
    auth: await setup.userToken(canonical),
    ...(chain ? { chain } : {}),
  });
  if (res.status !== 200) throw new Error(`kernel/sign answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { answer: res.body as unknown as KernelSignAnswer, worker: res.worker };
}
