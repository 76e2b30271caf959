import { type AuditKey, type AuditRow, auditKeyFrom, verifyAuditLog } from "../../gateway/custody/audit";
import type { AuditLogRepository } from "../../gateway/custody/audit/auditLogRepository";
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
    covers: row.covers,
    prevHash: row.prevHash,
    hash: row.hash,
  });

/** The service's AUDIT_LOG_KEY decoded, if set; false and an error written if it does not decode. */
function auditKeyOf(setting: string | undefined, output: Output): AuditKey | undefined | false {
  const text = setting?.trim();
  if (!text) return undefined;
  try {
    return auditKeyFrom(text);
  } catch (error) {
    output.err(`Error: ${(error as Error).message}`);
    return false;
  }
}

/**
 * Runs one audit command over the signature audit log. Resolves false when `verify` found the chain broken (the CLI
 * exits 1), true otherwise. `verify` checks the keyed rows' tags with `auditLogKey`, the service's AUDIT_LOG_KEY.
 */
export async function runAuditCommand(
  command: AuditCommand,
  auditLog: AuditLogRepository,
  output: Output,
  auditLogKey?: string,
): Promise<boolean> {
  switch (command.kind) {
    case "verify": {
      const key = auditKeyOf(auditLogKey, output);
      if (key === false) return false;
      const verdict = await verifyAuditLog(auditLog, key);
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
      const keyed =
        verdict.keyedFrom === undefined
          ? "No row is keyed: every row carries a plain SHA-256 hash (written without AUDIT_LOG_KEY)."
          : verdict.keyedFrom === 1
            ? "Keyed: every row carries its HMAC tag under AUDIT_LOG_KEY."
            : `Keyed from seq ${verdict.keyedFrom} on: the rows before it carry plain SHA-256 hashes (written before ` +
              "AUDIT_LOG_KEY), and are held in place by that row's tag.";
      output.out(
        `The signature audit log verifies: ${verdict.count} row(s).\n` +
          `Head: seq ${verdict.count} hash ${verdict.head}\n` +
          `${keyed}\n` +
          "Keep this head outside the database (a later log must still hold it at that seq): the log alone cannot " +
          "show its end cut off and the mark put back as it was earlier by someone who can write the database.",
      );
      return true;
    }
    case "export":
      for await (const row of auditLog.rows({ afterSeq: command.afterSeq })) output.out(jsonLine(row));
      return true;
  }
}
