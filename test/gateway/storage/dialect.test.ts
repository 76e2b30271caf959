import { expect } from "chai";
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import { isPostgres } from "../../../gateway/storage/sql/dialect/dialectOf";
import { lockRows, rowLockClause } from "../../../gateway/storage/sql/dialect/rowLocks";

interface Tables {
  leases: { name: string; token: number };
}

/** A Kysely that compiles `kind`'s SQL and never connects. */
function compilerOf(kind: "sqlite" | "postgres"): Kysely<Tables> {
  return new Kysely<Tables>({
    dialect: {
      createAdapter: () => (kind === "postgres" ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (kind === "postgres" ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (kind === "postgres" ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });
}

describe("storage: the dialect module's row locks", () => {
  const postgres = compilerOf("postgres");
  const sqlite = compilerOf("sqlite");
  const select = (db: Kysely<Tables>) => db.selectFrom("leases").select("token").where("name", "=", "a");

  it("tells the dialects apart", () => {
    expect(isPostgres(postgres)).to.equal(true);
    expect(isPostgres(sqlite)).to.equal(false);
  });

  it("locks the rows a select reads on PostgreSQL, and adds nothing on SQLite", () => {
    const locked = (db: Kysely<Tables>, ...args: Parameters<typeof lockRows>) =>
      select(db)
        .$call(lockRows(...args))
        .compile().sql;
    expect(locked(postgres, postgres, "update")).to.match(/ for update$/);
    expect(locked(postgres, postgres, "update", { skipLocked: true })).to.match(/ for update skip locked$/);
    expect(locked(postgres, postgres, "share")).to.match(/ for share$/);
    expect(locked(postgres, postgres, "keyShare", { of: "leases" })).to.match(/ for key share of "leases"$/);
    expect(locked(sqlite, sqlite, "update", { skipLocked: true })).to.equal(select(sqlite).compile().sql);
  });

  it("writes the same lock as a clause of SQL text, empty on SQLite", () => {
    const text = (db: Kysely<Tables>) =>
      sql`select 1 from leases d ${rowLockClause(db, "update", { of: "d", skipLocked: true })}`.compile(db).sql;
    expect(text(postgres)).to.equal('select 1 from leases d for update of "d" skip locked');
    expect(text(sqlite)).to.equal("select 1 from leases d ");
  });
});
