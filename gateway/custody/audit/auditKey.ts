import { type KeyObject, createHmac, createSecretKey } from "node:crypto";
import { decodeSecretsKey } from "../../crypto/secretsKeyring";
import { encodeAuditRow, encodeFields } from "./auditRowHash";
import type { AuditRow } from "./signatureAudit";

/** Names the keyed scheme inside every tag: no plain hash, and no mark's tag, can pass for a keyed row's tag. */
const ROW_SCHEME = "idwallet signature audit v2 hmac-sha256";
/** Names the tag of the mark (the highest seq given out and the row there). */
const MARK_SCHEME = "idwallet signature audit mark v2 hmac-sha256";

/**
 * AUDIT_LOG_KEY: the key of the audit log's HMAC chain (docs/keys-and-custody.md, "The signature audit log"). Only the
 * process that holds the custody keys has it (a cluster's primary; its HTTP workers never do), and whoever runs
 * `audit verify`: the database alone cannot forge a tag, so a thief with its credentials can rewrite, insert or cut
 * rows but not hide it.
 */
export interface AuditKey {
  readonly key: KeyObject;
}

/** The key in AUDIT_LOG_KEY's text (32 bytes: 64 hex digits or base64); throws on anything else. */
export function auditKeyFrom(text: string): AuditKey {
  const bytes = decodeSecretsKey(text);
  if (!bytes) throw new Error("AUDIT_LOG_KEY is 32 random bytes: 64 hex digits or base64");
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return { key };
}

const hmac = (key: AuditKey, data: Buffer): string => `0x${createHmac("sha256", key.key).update(data).digest("hex")}`;

/**
 * A keyed row's tag (stored as its `hash`), as 0x-hex: HMAC-SHA256 under the key over what auditRowHash hashes (the
 * scheme named differently). Each tag covers `prevHash`, the tag (or plain hash) of the row before: the tags chain.
 */
export function auditRowTag(key: AuditKey, prevHash: string, row: Omit<AuditRow, "prevHash" | "hash">): string {
  return hmac(key, encodeAuditRow(ROW_SCHEME, prevHash, row));
}

/**
 * The mark's tag: HMAC over the highest seq given out and the tag of the row with that seq. Written with each append,
 * so cutting the log's end and winding the mark back shows: the thief cannot tag the lower seq.
 */
export function auditMarkTag(key: AuditKey, seq: number, rowTag: string): string {
  return hmac(key, encodeFields([MARK_SCHEME, String(seq), rowTag]));
}
