import { type AuditRow, verifyAuditLog } from "../../gateway/custody/audit";
import type { AuditLogRepository } from "../../gateway/storage/auditLogRepository";
import type { AuditCommand } from "./auditArgs";

/** Where an audit command writes: results on `out`, a broken chain on `err`. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** A row as one JSON line: its fields in the log's order, absent ones left out (no bigints: every value is text or a number). */
const jsonLine = (row: AuditRow): string =>
  JSON.stringify({
    seq: row.seq,
    at: row.at,
    purpose: row.purpose,
    signer: row.signer,
    digest: row.digest,
    signature: row.signature,
    appId: row.appId,
    userId: row.userId,
    chain: row.chain,
    prevHash: row.prevHash,
    hash: row.hash,
  });

/**
 * Runs one audit command over the signature audit log. Resolves false when `verify` found the chain broken (the CLI
 * exits 1), true otherwise.
 */
export async function runAuditCommand(
  command: AuditCommand,
  auditLog: AuditLogRepository,
  output: Output,
): Promise<boolean> {
  switch (command.kind) {
    case "verify": {
      const verdict = await verifyAuditLog(auditLog);
      if (!verdict.ok) {
        output.err(
          `Error: the signature audit log is broken at seq ${verdict.brokenAt}: ${verdict.reason} ` +
            `(the ${verdict.count} row(s) before it verify)`,
        );
        return false;
      }
      if (verdict.head === undefined) {
        output.out("The signature audit log is empty: no custody signature is logged yet.");
        return true;
      }
      output.out(
        `The signature audit log verifies: ${verdict.count} row(s).\n` +
          `Head: seq ${verdict.count} hash ${verdict.head}\n` +
          "Keep this head outside the database (a later log must still hold it at that seq): the log alone cannot " +
          "show its end cut off or rewritten by someone who can write the file.",
      );
      return true;
    }
    case "export":
      for await (const row of auditLog.rows({ afterSeq: command.afterSeq })) output.out(jsonLine(row));
      return true;
  }
}
