/** A Safe account an app created (spec §4.10): threshold 1 of `owners`, the operator among them. */
export interface SafeRecord {
  readonly chain: string;
  readonly address: string;
  readonly appId: string;
  readonly owners: readonly string[];
  readonly saltNonce: bigint;
  readonly singleton: string;
  readonly proxyFactory: string;
  readonly fallbackHandler: string;
  /** The request that deploys it. */
  readonly deploymentTxId: string;
  readonly createdAt: string;
}

/** A Safe as created, before it is stored. */
export type NewSafe = Omit<SafeRecord, "deploymentTxId" | "createdAt">;

/** Where a page of an app's Safes starts: after this one (oldest first). */
export interface SafesCursor {
  readonly createdAt: string;
  readonly address: string;
}
