import { expect } from "chai";
import { sql } from "kysely";
import { openDatabase } from "../../../gateway/storage/database";
import { isStorageUnavailable } from "../../../gateway/storage/errors";
import { startPostgresServer } from "../../helpers/postgresServer";

/** The error `run` rejects with (it must reject). */
const failureOf = (run: () => Promise<unknown>): Promise<unknown> =>
  run().then(
    () => expect.fail("expected a failure"),
    (error: unknown) => error,
  );

describe("storage: PostgreSQL errors that mean unavailable (a 503), and those that do not", () => {
  it("calls a stopped server unavailable, and a bad statement or a broken constraint not", async function () {
    this.timeout(60_000);
    // A server of its own, since this test stops it.
    const server = await startPostgresServer();
    try {
      const { db, close } = await openDatabase(await server.createDatabase("errors"));
      try {
        expect(isStorageUnavailable(await failureOf(() => sql`selec 1`.execute(db)))).to.equal(false);
        const now = "2025-01-01T00:00:00.000Z";
        const broken = await failureOf(() =>
          db
            .insertInto("settings")
            .values({ key: "k", value: null as unknown as string, updated_at: now })
            .execute(),
        );
        expect(isStorageUnavailable(broken)).to.equal(false);
        const readOnly = await failureOf(() =>
          db.transaction().execute(async (trx) => {
            await sql`set transaction read only`.execute(trx);
            await trx.insertInto("settings").values({ key: "k", value: "v", updated_at: now }).execute();
          }),
        );
        expect(isStorageUnavailable(readOnly), String(readOnly)).to.equal(true);
        server.stop();
        const stopped = await failureOf(() => db.selectFrom("settings").selectAll().execute());
        expect(isStorageUnavailable(stopped), String(stopped)).to.equal(true);
        // The connection that dropped is gone; a new one is refused.
        const refused = await failureOf(() => db.selectFrom("settings").selectAll().execute());
        expect((refused as NodeJS.ErrnoException).code).to.equal("ECONNREFUSED");
        expect(isStorageUnavailable(refused)).to.equal(true);
      } finally {
        await close().catch(() => undefined);
      }
    } finally {
      server.stop();
    }
  });
});
