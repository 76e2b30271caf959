import { expect } from "chai";
import { sql } from "kysely";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { GroupCommit } from "../../../gateway/storage/sql/groupCommit";
import { freshPostgresDatabase } from "../../helpers/postgresServer";

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`storage: group commit on ${backend === "sqlite" ? "SQLite" : "PostgreSQL"}`, function () {
    this.timeout(60_000);
    let database: Database;

    beforeEach(async () => {
      database = await openDatabase(backend === "sqlite" ? ":memory:" : await freshPostgresDatabase("group_commit"));
    });
    afterEach(async () => database.close());

    // Two groups of one instance at once would each hold a connection and, locking one app's key, wait on each other
    // while paying their round trips in turn (issue 37: 74 ms of lock wait a request on PostgreSQL); with keys apart
    // (here, each write another app's) they would run side by side. The next group waits for the running one and
    // takes everything that arrived meanwhile. (SQLite's one connection serializes transactions anyway.)
    it("runs one group at a time: writes that arrive while a group commits share the next one", async () => {
      const groups = new GroupCommit(database.db);
      const held = gate();
      const started = gate();
      let running = 0;
      let most = 0;
      const transactionOf: string[] = [];
      const write = (name: string, wait?: Promise<void>) =>
        groups.run([`accept:${name}`], async (trx) => {
          running += 1;
          most = Math.max(most, running);
          if (wait) {
            started.open();
            await wait;
          }
          // Which transaction the write ran in: PostgreSQL's id of it; on SQLite, the group's first write's name.
          const id =
            backend === "postgres"
              ? String((await sql<{ id: string }>`select txid_current() as id`.execute(trx)).rows[0]!.id)
              : name;
          transactionOf.push(`${name}:${id}`);
          running -= 1;
          return name;
        });
      const first = write("first", held.opened);
      await started.opened;
      const later = ["second", "third", "fourth"].map((name) => write(name));
      // Give a second group every chance to start beside the first, as it did before.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(running).to.equal(1);
      held.open();
      expect(await Promise.all([first, ...later])).to.deep.equal(["first", "second", "third", "fourth"]);
      expect(most).to.equal(1);
      if (backend === "postgres") {
        const ids = transactionOf.map((entry) => entry.split(":")[1]);
        expect(ids[0]).to.not.equal(ids[1]);
        expect(new Set(ids.slice(1)).size, "the three later writes in one transaction").to.equal(1);
      }
    });

    it("a refused write in a later group is undone alone, and the group's others commit", async () => {
      await sql`create table group_probe (name text primary key)`.execute(database.db);
      const groups = new GroupCommit(database.db);
      const insert = (name: string) =>
        groups.run([], async (trx) => {
          await sql`insert into group_probe (name) values (${name})`.execute(trx);
          return name;
        });
      await insert("taken");
      const outcomes = await Promise.allSettled([insert("a"), insert("taken"), insert("b")]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
      const rows = await sql<{ name: string }>`select name from group_probe order by name`.execute(database.db);
      expect(rows.rows.map((r) => r.name)).to.deep.equal(["a", "b", "taken"]);
    });
  });
}
