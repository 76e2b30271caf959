/**
 * A process appending to the signature audit log of a database file, for the test of appenders in several processes:
 *
 *   node -r ts-node/register/transpile-only test/helpers/auditAppender.ts <file> <label> <batches> <batch size>
 *
 * Opens the file, prints "ready", waits for a line on stdin (so that processes start appending together), appends
 * `batches` batches of `batch size` entries (their appId `label`), one after another with a millisecond between (as a
 * service appends between signatures; without it one process may hold the write lock batch after batch, since SQLite's
 * lock is not fair), and prints "appended <rows>".
 */
import { createInterface } from "node:readline";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { auditEntries } from "../gateway/custody/auditBuilders";

async function main(file: string, label: string, batches: number, batchSize: number): Promise<void> {
  const database = await openDatabase(file);
  try {
    const { auditLog } = createRepositories(database.db, () => new Date());
    const entries = auditEntries(batchSize).map((entry) => ({ ...entry, appId: label }));
    const go = createInterface({ input: process.stdin });
    process.stdout.write("ready\n");
    await new Promise((resolve) => go.once("line", resolve));
    go.close();
    let rows = 0;
    for (let i = 0; i < batches; i++) {
      rows += (await auditLog.append(entries, new Date())).length;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    process.stdout.write(`appended ${rows}\n`);
  } finally {
    await database.close();
  }
}

// Only when run as a process: the test runner loads every file under test/.
if (require.main === module) {
  const [file, label, batches, batchSize] = process.argv.slice(2);
  main(file!, label!, Number(batches), Number(batchSize)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
