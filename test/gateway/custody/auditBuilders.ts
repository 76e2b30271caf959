import BetterSqlite3 from "better-sqlite3";
import { getBytes, keccak256, toUtf8Bytes } from "ethers";
import {
  type AuditRow,
  GENESIS_HASH,
  type SignatureAuditEntry,
  type SignaturePurpose,
  chainAuditRows,
} from "../../../gateway/custody/audit";
import { createDigestSigner } from "../../../gateway/crypto/digestSigner";

const PURPOSES: readonly SignaturePurpose[] = [
  "userOperation",
  "sponsorship",
  "eip1271",
  "safeTransaction",
  "relayerTransaction",
  "custodyRoot",
];

/** The custody key of the test entries. */
export const auditSigner = createDigestSigner(keccak256(toUtf8Bytes("audit log test key")));

/** The `n`th test signature: its digest, really signed by the test key, for each purpose in turn. */
export function auditEntry(n: number, overrides: Partial<SignatureAuditEntry> = {}): SignatureAuditEntry {
  const digest = keccak256(toUtf8Bytes(`signed thing ${n}`));
  const purpose = PURPOSES[n % PURPOSES.length]!;
  return {
    purpose,
    // A custody root lists the operations it covers; no other row has the field.
    ...(purpose === "custodyRoot" && {
      covers: [keccak256(toUtf8Bytes(`leaf ${n} a`)), keccak256(toUtf8Bytes(`leaf ${n} b`))],
    }),
    signer: auditSigner.address,
    digest,
    signature: auditSigner.sign(getBytes(digest)),
    appId: "app_audit",
    userId: `phone:1415555${String(n).padStart(4, "0")}`,
    chain: "base",
    ...overrides,
  };
}

/** `count` entries, numbered from `from`. */
export const auditEntries = (count: number, from = 1): SignatureAuditEntry[] =>
  Array.from({ length: count }, (_, i) => auditEntry(from + i));

/** A log of `count` rows chained in memory, stamped `at`. */
export const chainedRows = (count: number, at = new Date("2025-01-01T00:00:00.000Z")): AuditRow[] =>
  chainAuditRows(GENESIS_HASH, 1, auditEntries(count), at);

/**
 * Edits the database file as an attacker with write access to it does: a connection of their own, around the
 * append-only triggers (dropped first: whoever can write the file can).
 */
export function tamperWith(file: string, edit: (db: BetterSqlite3.Database) => void): void {
  const db = new BetterSqlite3(file);
  try {
    db.exec("drop trigger if exists signature_audit_no_update; drop trigger if exists signature_audit_no_delete;");
    edit(db);
  } finally {
    db.close();
  }
}
