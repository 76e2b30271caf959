import type { JsonRpcProvider } from "ethers";
import { safeInterface } from "../../gateway/safe/encoding/safeArtifacts";
import { requestHash } from "../../gateway/accept/requestAcceptance";
import type { SafesRepository } from "../../gateway/safe/model/safesRepository";
import type { TransactionsRepository } from "../../gateway/transactions/transactionsRepository";

/** The head of a Safe's owner list (OwnerManager.SENTINEL_OWNERS): the "previous owner" of its first owner. */
const SENTINEL_OWNERS = "0x0000000000000000000000000000000000000001";

/**
 * How the swap requests' Idempotency-Keys begin. The swap is a request of the Safe's app, and idempotency keys are
 * scoped to the app: so the key holds spaces, which no Idempotency-Key header can (1 to 255 visible ASCII characters),
 * or the app could take the key first with a request of its own, which every run would then take for the swap.
 */
const ROTATION_KEY = "rotate-operator";

/** Swap requests one Safe may be given across runs before the command stops queueing more and reports it. */
const MAX_SWAP_REQUESTS = 5;

/** What one run of the operator rotation found and did. */
export interface SafeOperatorRotation {
  /** Safes whose swap is on chain, now recorded with the new operator. */
  readonly swapped: number;
  /** Swap requests queued by this run or earlier, not final yet (the worker sends them). */
  readonly pending: readonly string[];
  /** Safes whose swap failed every time it was queued (MAX_SWAP_REQUESTS): to look into. */
  readonly failed: readonly string[];
  /** Safes the operator owns no more, without the swap (their other owners removed it). */
  readonly lost: readonly string[];
}

/**
 * One run of the Safe operator's rotation on a chain: for every Safe recorded with `previous` among its owners, a
 * `swapOwner(prev, previous, next)` Safe transaction queued as a request of the Safe's app (relayed, signed by the
 * key that owns the Safe, tracked like any request; no gas reserved from the app's budget: the operator rotates), or,
 * once it is on chain, the record updated. Run it again until nothing is pending; each run is idempotent.
 */
export async function rotateSafeOperator(
  deps: {
    readonly provider: JsonRpcProvider;
    readonly safes: Pick<SafesRepository, "ownedBy" | "replaceOwner">;
    readonly transactions: Pick<TransactionsRepository, "create">;
  },
  chain: string,
  previous: string,
  next: string,
): Promise<SafeOperatorRotation> {
  let swapped = 0;
  const pending: string[] = [];
  const failed: string[] = [];
  const lost: string[] = [];
  for (const safe of await deps.safes.ownedBy(chain, previous)) {
    const answer = await deps.provider.call({ to: safe.address, data: safeInterface.encodeFunctionData("getOwners") });
    const owners = (safeInterface.decodeFunctionResult("getOwners", answer)[0] as string[]).map((o) => o.toLowerCase());
    const at = owners.indexOf(previous.toLowerCase());
    if (at < 0) {
      if (owners.includes(next.toLowerCase())) {
        await deps.safes.replaceOwner(chain, safe.address, previous, next);
        swapped++;
      } else lost.push(safe.address);
      continue;
    }
    const data = safeInterface.encodeFunctionData("swapOwner", [
      at === 0 ? SENTINEL_OWNERS : owners[at - 1],
      previous,
      next,
    ]);
    // One swap per Safe and new operator: running the command again finds it rather than queueing another; after a
    // failed one, the next key names it, so a run queues one new swap, and the one after finds that. The key is one
    // no app can send (see ROTATION_KEY): the swap is queued as a request of the Safe's app.
    let key = `${ROTATION_KEY} ${safe.address} ${next}`;
    let record;
    for (let attempt = 0; attempt < MAX_SWAP_REQUESTS; attempt++) {
      const hash = requestHash(["safe-rotate-operator", chain, safe.address, previous, next, key]);
      ({ record } = await deps.transactions.create({
        appId: safe.appId,
        accountType: "safe",
        chain,
        sender: safe.address,
        calls: [{ to: safe.address, value: 0n, data }],
        delegatecall: false,
        idempotencyKey: key,
        requestHash: hash,
        safeAction: "custom",
        reservedGas: 0n,
      }));
      if (record.requestHash !== hash) throw new Error(`${safe.address}: the key ${key} holds another request`);
      if (record.status !== "failed") break;
      key = `${ROTATION_KEY} ${safe.address} ${next} after ${record.id}`;
    }
    if (record!.status === "failed") failed.push(safe.address);
    else pending.push(record!.id);
  }
  return { swapped, pending, failed, lost };
}
