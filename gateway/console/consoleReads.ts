import type { TxStatus } from "../transactions/txRecord";

/** A request as the console lists it. */
export interface RequestSummary {
  readonly id: string;
  readonly appId: string;
  readonly userId: string;
  readonly chain: string;
  readonly status: TxStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly errorCode: string | undefined;
  readonly transactionHash: string | undefined;
}

/** Which requests a listing keeps: an app's, a chain's, one id, one user id, one status; newest first. */
export interface RequestFilter {
  readonly appId?: string;
  readonly chain?: string;
  readonly id?: string;
  readonly userId?: string;
  readonly status?: TxStatus;
  readonly limit: number;
}

/** A relayer bundle with the requests it carries. */
export interface BundleSummary {
  readonly id: string;
  readonly status: "pending" | "mined" | "dropped";
  readonly txHash: string | undefined;
  readonly blockNumber: number | undefined;
  readonly createdAt: string;
  readonly requestIds: readonly string[];
}

/** A chain's queue: requests waiting, in flight, bundles not mined, the oldest waiting request. */
export interface ChainQueue {
  readonly queued: number;
  readonly submitted: number;
  readonly pendingBundles: number;
  readonly oldestQueuedAt: string | undefined;
}

/** A request that became final: when it was accepted and when it became final (latency, throughput). */
export interface FinishedRequest {
  readonly status: "included" | "failed";
  readonly createdAt: string;
  readonly finishedAt: string;
  readonly errorCode: string | undefined;
  /** Gas it cost, and the most its bundle paid a unit of gas (wei): the relayer's spend, at most. */
  readonly settledGas: bigint;
  readonly maxFeePerGas: bigint | undefined;
}

/** One webhook delivery of an event, as the request page shows it. */
export interface DeliverySummary {
  readonly eventId: string;
  readonly eventType: string;
  readonly endpointId: string;
  readonly url: string;
  readonly status: string;
  readonly attempts: number;
  readonly lastAttemptAt: string | undefined;
  readonly lastStatusCode: number | undefined;
  readonly lastError: string | undefined;
}

/** Gas an app spent in one minute (all chains), for its budget chart. */
export interface SpendMinute {
  readonly minute: number;
  readonly gas: bigint;
}

/** What the console's views read beyond the service's own repositories (issue 38); reads only. */
export interface ConsoleReads {
  requests(filter: RequestFilter): Promise<RequestSummary[]>;
  queue(chain: string): Promise<ChainQueue>;
  /** A chain's requests that became final since `since` (at most `limit`, newest first). */
  finishedSince(chain: string, since: Date, limit: number): Promise<FinishedRequest[]>;
  recentBundles(chain: string, limit: number): Promise<BundleSummary[]>;
  bundle(id: string): Promise<BundleSummary | undefined>;
  deliveriesOf(txId: string): Promise<DeliverySummary[]>;
  /** An app's spend per minute from `sinceMinute` (minutes since the epoch) on. */
  spendByMinute(appId: string, sinceMinute: number): Promise<SpendMinute[]>;
}
