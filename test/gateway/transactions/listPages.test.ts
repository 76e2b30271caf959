import { expect } from "chai";
import { createListCursors } from "../../../gateway/transactions/listCursor";
import { pageOf, readPage } from "../../../gateway/transactions/listPages";
import { LIST_SCAN_ROWS, type TxListPosition, type TxListWindow } from "../../../gateway/transactions/txListing";
import { ApiError } from "../../../gateway/errors/apiError";

const SECRET = "a-token-secret-of-at-least-32-characters";
const at = (ms: number, id: string): TxListPosition => ({
  createdAt: new Date(Date.UTC(2026, 10, 22) + ms).toISOString(),
  id,
});

describe("request listings: pages and their cursors", () => {
  it("a page of `limit` from a read of `limit + 1`: the extra request says more follow the page's last", () => {
    const records = [at(3, "c"), at(2, "b"), at(1, "a")];
    expect(pageOf({ records, scannedTo: undefined }, 2)).to.deep.equal({
      records: records.slice(0, 2),
      next: at(2, "b"),
    });
    expect(pageOf({ records, scannedTo: at(0, "z") }, 3), "a full read: none follow").to.deep.equal({
      records,
      next: at(0, "z"),
    });
    expect(pageOf({ records: records.slice(0, 1), scannedTo: undefined }, 2)).to.deep.equal({
      records: records.slice(0, 1),
      next: undefined,
    });
    // A read that stopped at its bound with few kept goes on from where it stopped, even with none kept.
    expect(pageOf({ records: [], scannedTo: at(1, "a") }, 2)).to.deep.equal({ records: [], next: at(1, "a") });
  });

  it("reads from the cursor's place one more than the page, at most LIST_SCAN_ROWS, and issues the next page's cursor", async () => {
    const cursors = createListCursors(SECRET);
    const scope = ["wallet requests", "kernel", "app_1", null, null, "failed"];
    const windows: TxListWindow[] = [];
    const first = await readPage(cursors, scope, { limit: 2 }, async (window) => {
      windows.push(window);
      return { records: [at(5, "e"), at(4, "d"), at(3, "c")], scannedTo: undefined };
    });
    expect(first.records).to.deep.equal([at(5, "e"), at(4, "d")]);
    expect(cursors.read(scope, first.nextCursor!)).to.deep.equal(at(4, "d"));
    const second = await readPage(cursors, scope, { limit: 2, cursor: first.nextCursor! }, async (window) => {
      windows.push(window);
      return { records: [at(3, "c")], scannedTo: undefined };
    });
    expect(second).to.deep.equal({ records: [at(3, "c")], nextCursor: null });
    expect(windows).to.deep.equal([
      { after: undefined, limit: 3, scan: LIST_SCAN_ROWS },
      { after: at(4, "d"), limit: 3, scan: LIST_SCAN_ROWS },
    ]);
  });

  it("a cursor names its place for its scope and key alone", () => {
    const cursors = createListCursors(SECRET);
    const scope = ["safe requests", "app_1", "localhost", "0x5AFE000000000000000000000000000000000001", null];
    const cursor = cursors.issue(scope, at(1, "a"));
    expect(cursor).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(cursors.read(scope, cursor)).to.deep.equal(at(1, "a"));
    expect(createListCursors(SECRET).read(scope, cursor), "another process of the deployment").to.deep.equal(
      at(1, "a"),
    );
    const refusedBy = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return error instanceof ApiError ? [error.status, error.code] : error;
      }
      return "read";
    };
    for (const [label, read] of [
      ["another app", () => cursors.read(["safe requests", "app_2", ...scope.slice(2)], cursor)],
      ["another filter", () => cursors.read([...scope.slice(0, 4), "failed"], cursor)],
      ["another key", () => createListCursors(`${SECRET}!`).read(scope, cursor)],
      ["empty", () => cursors.read(scope, "")],
      ["over long", () => cursors.read(scope, `${"A".repeat(401)}.${cursor.split(".")[1]}`)],
    ] as const) {
      expect(refusedBy(read), label).to.deep.equal([400, "INVALID_CURSOR"]);
    }
  });
});
