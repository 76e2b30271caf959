import type { Kysely, Selectable } from "kysely";
import { z } from "zod";
import type { DatabaseSchema, SafesTable } from "../schema";
import {
  type NewSafe,
  type SafeRecord,
  type SafesCursor,
  hasOwner,
  ownersAfterSwap,
} from "../../safe/model/safeRecord";
import { SafeExistsError, type SafesRepository } from "../../safe/model/safesRepository";
import type { NewTx, TxRecord } from "../../transactions/txRecord";
import type { SpendLimit } from "../../transactions/spendLimits";
import { acceptLockKeys, earlierRequest, insertRequest } from "./acceptedRequests";
import type { GroupCommit } from "./groupCommit";
import { lockRows } from "./dialect/rowLocks";
import { listSafeRequests } from "./requestListing";

const StoredOwners = z.array(z.string()).min(1);

function toSafe(row: Selectable<SafesTable>): SafeRecord {
  return {
    chain: row.chain,
    address: row.address,
    appId: row.app_id,
    owners: StoredOwners.parse(JSON.parse(row.owners)),
    saltNonce: BigInt(row.salt_nonce),
    singleton: row.singleton,
    proxyFactory: row.proxy_factory,
    fallbackHandler: row.fallback_handler,
    deploymentTxId: row.deployment_tx_id,
    createdAt: row.created_at,
  };
}

/** SafesRepository over SQLite and PostgreSQL. */
export class SqlSafesRepository implements SafesRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
    /** The group commit accepted requests are stored through, the transactions repository's own. */
    private readonly commits: GroupCommit,
  ) {}

  /** The Safe and its deployment request join the next group commit, as every accepted request does. */
  create(
    safe: NewSafe,
    deployment: NewTx,
    limits: readonly SpendLimit[] = [],
  ): Promise<{ safe: SafeRecord | undefined; record: TxRecord; created: boolean }> {
    const keys = [...acceptLockKeys(deployment), `safe:${safe.chain}:${safe.address.toLowerCase()}`];
    return this.commits.run(keys, async (trx) => {
      if (deployment.idempotencyKey !== undefined) {
        const earlier = await earlierRequest(trx, deployment.appId, deployment.idempotencyKey);
        if (earlier) {
          const earlierSafe = await trx
            .selectFrom("safes")
            .selectAll()
            .where("deployment_tx_id", "=", earlier.id)
            .executeTakeFirst();
          // Undefined if the key was used for another kind of request: its request hash differs, so it is a 409.
          return { safe: earlierSafe && toSafe(earlierSafe), record: earlier, created: false };
        }
      }
      const taken = await trx
        .selectFrom("safes")
        .select("address")
        .where("chain", "=", safe.chain)
        .where("address", "=", safe.address)
        .executeTakeFirst();
      if (taken) throw new SafeExistsError(`a Safe at ${safe.address} on ${safe.chain} is already recorded`);
      const record = await insertRequest(trx, deployment, limits, this.clock());
      const safeRow: Selectable<SafesTable> = {
        chain: safe.chain,
        address: safe.address,
        app_id: safe.appId,
        owners: JSON.stringify(safe.owners),
        salt_nonce: safe.saltNonce.toString(),
        singleton: safe.singleton,
        proxy_factory: safe.proxyFactory,
        fallback_handler: safe.fallbackHandler,
        deployment_tx_id: record.id,
        created_at: record.createdAt,
      };
      await trx.insertInto("safes").values(safeRow).execute();
      return { safe: toSafe(safeRow), record, created: true };
    });
  }

  async find(chain: string, address: string): Promise<SafeRecord | undefined> {
    const row = await this.db
      .selectFrom("safes")
      .selectAll()
      .where("chain", "=", chain)
      .where("address", "=", address)
      .executeTakeFirst();
    return row && toSafe(row);
  }

  readonly listRequests: SafesRepository["listRequests"] = (query) => listSafeRequests(this.db, query);

  async ownedBy(chain: string, owner: string): Promise<SafeRecord[]> {
    const rows = await this.db
      .selectFrom("safes")
      .selectAll()
      .where("chain", "=", chain)
      .orderBy("created_at")
      .orderBy("address")
      .execute();
    return rows.map(toSafe).filter((safe) => hasOwner(safe, owner));
  }

  async replaceOwner(chain: string, address: string, previous: string, next: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("safes")
        .selectAll()
        .where("chain", "=", chain)
        .where("address", "=", address)
        // Two instances replacing owners of one Safe at once: the second reads the first's owners, not the old ones.
        .$call(lockRows(trx, "update"))
        .executeTakeFirst();
      if (!row) return;
      const owners = ownersAfterSwap(toSafe(row).owners, previous, next);
      await trx
        .updateTable("safes")
        .set({ owners: JSON.stringify(owners) })
        .where("chain", "=", chain)
        .where("address", "=", address)
        .execute();
    });
  }

  async list(appId: string, chain: string, limit: number, cursor?: SafesCursor): Promise<SafeRecord[]> {
    let query = this.db.selectFrom("safes").selectAll().where("app_id", "=", appId).where("chain", "=", chain);
    if (cursor) {
      query = query.where((eb) =>
        eb.or([
          eb("created_at", ">", cursor.createdAt),
          eb.and([eb("created_at", "=", cursor.createdAt), eb("address", ">", cursor.address)]),
        ]),
      );
    }
    const rows = await query.orderBy("created_at").orderBy("address").limit(limit).execute();
    return rows.map(toSafe);
  }
}
