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

/** Whether `owner` is among a Safe's recorded owners (addresses compared whatever their case). */
export const hasOwner = (safe: Pick<SafeRecord, "owners">, owner: string): boolean =>
  safe.owners.some((o) => o.toLowerCase() === owner.toLowerCase());

/** A Safe's owners after its swapOwner replaced `previous` with `next`, in place (the order the contract keeps). */
export const ownersAfterSwap = (owners: readonly string[], previous: string, next: string): string[] =>
  owners.map((o) => (o.toLowerCase() === previous.toLowerCase() ? next : o));
