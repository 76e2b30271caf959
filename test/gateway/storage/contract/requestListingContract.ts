import { expect } from "chai";
import { type RawBuilder, sql } from "kysely";
import type { Database } from "../../../../gateway/storage/database";
import { newTransactionRow } from "../../../../gateway/storage/sql/transactionRows";
import { listingStatement, safeScope, walletScope } from "../../../../gateway/storage/sql/requestListing";
import { isPostgres } from "../../../../gateway/storage/sql/dialect/dialectOf";
import { type OpenTestDatabase, manualClock } from "../builders";
import { createRepositories } from "../../../../gateway/storage/repositories";
import {
  LIST_SCAN_ROWS,
  type TxListPosition,
  type TxListRead,
  type TxListWindow,
} from "../../../../gateway/transactions/txListing";
import type { NewSafeTx, NewWalletTx, TxStatus } from "../../../../gateway/transactions/txRecord";

const SAFE = "0x5AFE000000000000000000000000000000000001";
const OTHER_SAFE = "0x5AFE000000000000000000000000000000000002";

/** A fresh store with two apps, a hand-moved clock, and builders of their requests. */
async function freshListingStore(open: OpenTestDatabase) {
  const database = await open();
  const clock = manualClock("2026-11-22T12:00:00.000Z");
  const repos = createRepositories(database.db, clock.now);
  const acme = (await repos.apps.create({ name: "acme" })).app.id;
  const rival = (await repos.apps.create({ name: "rival" })).app.id;
  const wallet = async (extra: Partial<NewWalletTx> = {}) => {
    const tx: NewWalletTx = {
      appId: acme,
      accountType: "kernel",
      userId: "acme:alice",
      chain: "localhost",
      sender: "0x00000000000000000000000000000000000000A1",
      calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 0n, data: "0x" }],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: "h",
      ...extra,
    };
    return (await repos.transactions.create(tx)).record;
  };
  const safeTx = async (extra: Partial<NewSafeTx> = {}) => {
    const tx: NewSafeTx = {
      appId: acme,
      accountType: "safe",
      chain: "localhost",
      sender: SAFE,
      calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 1n, data: "0x" }],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: "h",
      safeAction: "transfer",
      ...extra,
    };
    return (await repos.transactions.create(tx)).record;
  };
  const setStatus = (ids: readonly string[], status: TxStatus) =>
    database.db.updateTable("transactions").set({ status }).where("id", "in", ids).execute();
  return { database, clock, repos, acme, rival, wallet, safeTx, setStatus };
}

/** Newest first, and among requests of one millisecond the greater id first: the listings' order. */
const newestFirst = <R extends TxListPosition>(records: readonly R[]): string[] =>
  [...records]
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
    .map((r) => r.id);

const ids = (read: TxListRead<{ id: string }>) => read.records.map((r) => r.id);
const window = (limit: number, after?: TxListPosition, scan = 1000): TxListWindow => ({ after, limit, scan });
const placeOf = (record: TxListPosition): TxListPosition => ({ createdAt: record.createdAt, id: record.id });

/** What the request listings of every dialect's repositories do (migration 022's indexes, their order and bounds). */
export function requestListingContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: request listings (${dialect})`, () => {
    it("lists an app's requests of one account type, newest first and by id within a millisecond, none of another app or type", async () => {
      const { database, clock, repos, acme, rival, wallet, safeTx } = await freshListingStore(open);
      const mine = [await wallet(), await wallet()];
      clock.advance(5);
      mine.push(await wallet(), await wallet(), await wallet());
      await wallet({ appId: rival });
      await wallet({ accountType: "base" });
      await safeTx();
      clock.advance(5);
      mine.push(await wallet({ chain: "other" }));
      const read = await repos.transactions.listWalletRequests({
        appId: acme,
        accountType: "kernel",
        userId: undefined,
        chain: undefined,
        status: undefined,
        ...window(10),
      });
      expect(ids(read)).to.deep.equal(newestFirst(mine));
      expect(read.scannedTo).to.equal(undefined);
      await database.close();
    });

    it("reads on from a place: no request twice, none left out, while newer ones are stored between the reads", async () => {
      const { database, clock, repos, acme, wallet } = await freshListingStore(open);
      const stored = [];
      for (let i = 0; i < 7; i++) {
        stored.push(await wallet());
        // Two requests in each millisecond: the id orders them.
        if (i % 2 === 1) clock.advance(1);
      }
      const expected = newestFirst(stored);
      const seen: string[] = [];
      let after: TxListPosition | undefined;
      for (let page = 0; page < 10; page++) {
        const query = { appId: acme, accountType: "kernel" as const, userId: undefined, chain: undefined };
        const read = await repos.transactions.listWalletRequests({ ...query, status: undefined, ...window(3, after) });
        seen.push(...ids(read));
        if (read.records.length < 3) break;
        after = placeOf(read.records.at(-1)!);
        clock.advance(1);
        await wallet();
      }
      expect(seen).to.deep.equal(expected);
      await database.close();
    });

    it("filters by user id, chain and status, alone and together", async () => {
      const { database, clock, repos, acme, wallet, setStatus } = await freshListingStore(open);
      const alice = await wallet();
      clock.advance(1);
      const bob = await wallet({ userId: "acme:bob" });
      clock.advance(1);
      const aliceOther = await wallet({ chain: "other" });
      clock.advance(1);
      const aliceFailed = await wallet();
      await setStatus([aliceFailed.id], "failed");
      const list = (filters: { userId?: string; chain?: string; status?: TxStatus }) =>
        repos.transactions
          .listWalletRequests({
            appId: acme,
            accountType: "kernel",
            userId: filters.userId,
            chain: filters.chain,
            status: filters.status,
            ...window(10),
          })
          .then(ids);
      expect(await list({ userId: "acme:alice" })).to.deep.equal([aliceFailed.id, aliceOther.id, alice.id]);
      expect(await list({ userId: "acme:bob" })).to.deep.equal([bob.id]);
      expect(await list({ userId: "ACME:alice" }), "the repository matches the canonical form only").to.deep.equal([]);
      expect(await list({ chain: "other" })).to.deep.equal([aliceOther.id]);
      expect(await list({ status: "failed" })).to.deep.equal([aliceFailed.id]);
      expect(await list({ status: "queued", userId: "acme:alice", chain: "localhost" })).to.deep.equal([alice.id]);
      await database.close();
    });

    it("a filter that keeps few: a read stops after `scan` requests and says where, and the next read goes on from there", async () => {
      const { database, clock, repos, acme, wallet, setStatus } = await freshListingStore(open);
      const all = [];
      for (let i = 0; i < 10; i++) {
        all.push(await wallet());
        clock.advance(1);
      }
      // Newest first: the failed ones are the 2nd and the 9th of the listing.
      const failed = [all[8]!, all[1]!];
      await setStatus(
        failed.map((r) => r.id),
        "failed",
      );
      const read = (after?: TxListPosition) =>
        repos.transactions.listWalletRequests({
          appId: acme,
          accountType: "kernel",
          userId: undefined,
          chain: undefined,
          status: "failed",
          ...window(3, after, 4),
        });
      const first = await read();
      expect(ids(first)).to.deep.equal([failed[0]!.id]);
      expect(first.scannedTo, "the 4th request read").to.deep.equal(placeOf(all[6]!));
      const second = await read(first.scannedTo);
      expect([ids(second), second.scannedTo]).to.deep.equal([[], placeOf(all[2]!)]);
      const third = await read(second.scannedTo);
      expect([ids(third), third.scannedTo]).to.deep.equal([[failed[1]!.id], undefined]);
      await database.close();
    });

    it("lists a Safe's requests: that Safe's on that chain, of its app, none of another Safe, chain or app", async () => {
      const { database, clock, repos, acme, rival, safeTx, wallet, setStatus } = await freshListingStore(open);
      const mine = [await safeTx({ safeAction: "create" })];
      clock.advance(1);
      mine.push(await safeTx(), await safeTx({ safeAction: "disperse" }));
      await safeTx({ sender: OTHER_SAFE });
      await safeTx({ chain: "other" });
      await safeTx({ appId: rival });
      await wallet({ sender: SAFE });
      await setStatus([mine[1]!.id], "included");
      const list = (status?: TxStatus, limit = 10) =>
        repos.safes.listRequests({ appId: acme, chain: "localhost", address: SAFE, status, ...window(limit) });
      expect(ids(await list())).to.deep.equal(newestFirst(mine));
      expect(ids(await list("included"))).to.deep.equal([mine[1]!.id]);
      expect(ids(await list(undefined, 1))).to.deep.equal(newestFirst(mine).slice(0, 1));
      await database.close();
    });

    it("each listing reads its index, newest first without sorting the table (EXPLAIN)", async () => {
      const { database, acme } = await freshListingStore(open);
      await fillRequests(database.db, acme);
      const page = window(21, { createdAt: "2026-11-22T12:00:07.000Z", id: "m" }, LIST_SCAN_ROWS);
      const wallet = (userId?: string, chain?: string, status?: TxStatus) => {
        const query = { appId: acme, accountType: "kernel" as const, userId, chain, status, ...page };
        return listingStatement(walletScope(query), query);
      };
      const safe = (status?: TxStatus) => {
        const query = { appId: acme, chain: "localhost", address: SAFE, status, ...page };
        return listingStatement(safeScope(query), query);
      };
      // A read the index covers walks it in order: no sort at all. A filtered one sorts only the rows it read.
      const cases = [
        ["the app's", wallet(), "transactions_app_listing", true],
        ["a user id's", wallet("acme:u8"), "transactions_user_listing", true],
        ["a Safe's", safe(), "transactions_safe_listing", true],
        ["the app's, of a chain and status", wallet(undefined, "other", "failed"), "transactions_app_listing", false],
        ["a user id's, of a status", wallet("acme:u8", undefined, "failed"), "transactions_user_listing", false],
        ["a Safe's, of a status", safe("failed"), "transactions_safe_listing", false],
      ] as const;
      for (const [name, statement, index, unsorted] of cases) {
        const plan = await explain(database.db, statement);
        expect(plan, name).to.match(new RegExp(`\\b${index}\\b`));
        if (unsorted) expect(plan, name).to.not.match(/TEMP B-TREE|\bSort\b/);
      }
      await database.close();
    });
  });
}

/**
 * Eight thousand requests of three apps (half of them `appId`'s), users, chains and accounts, one a millisecond, and
 * the planner's statistics of them: what a listing's plan is chosen for (a few rows are read faster without an index,
 * and an app's requests must outnumber a page's bound of LIST_SCAN_ROWS for the bounded read to use it).
 */
async function fillRequests(db: Database["db"], appId: string): Promise<void> {
  const { rows } = await sql<{ id: string }>`select id from apps`.execute(db);
  const apps = rows.map((row) => row.id);
  const requests = Array.from({ length: 8000 }, (_, i) => {
    const createdAt = new Date(Date.parse("2026-11-22T12:00:00.000Z") + i).toISOString();
    const safe = i % 3 === 2;
    const tx = {
      appId: i % 2 === 0 ? appId : apps[i % apps.length]!,
      chain: i % 5 === 0 ? "other" : "localhost",
      sender: safe ? (i % 4 === 0 ? SAFE : OTHER_SAFE) : `0x${(i % 50).toString(16).padStart(40, "0")}`,
      calls: [],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: "h",
    };
    const row = newTransactionRow(
      safe
        ? { ...tx, accountType: "safe", safeAction: "transfer" }
        : { ...tx, accountType: "kernel", userId: `acme:u${i % 40}` },
      createdAt,
    );
    return { ...row, status: i % 7 === 0 ? ("failed" as const) : ("included" as const) };
  });
  for (let i = 0; i < requests.length; i += 500) {
    await db
      .insertInto("transactions")
      .values(requests.slice(i, i + 500))
      .execute();
  }
  await sql`analyze`.execute(db);
}

/** The plan the database chooses for a listing's statement, as text. */
async function explain(db: Database["db"], statement: RawBuilder<unknown>): Promise<string> {
  const { rows } = await (isPostgres(db) ? sql`explain ${statement}` : sql`explain query plan ${statement}`).execute(
    db,
  );
  return JSON.stringify(rows);
}
