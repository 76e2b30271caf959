import type { SignatureAuditEntry, SignaturePurpose } from "./audit/signatureAudit";
import type { CustodySigner } from "./custodySigner";

/** Why a digest is signed and for whom: what the signing log records with it. */
export interface SigningContext {
  readonly purpose: SignaturePurpose;
  readonly appId?: string;
  /** The canonical user id whose wallet the signature acts for. */
  readonly userId?: string;
  readonly chain?: string;
  /** A custody root's covered hashes (each operation's CustodyPaymaster.getHash), in leaf order. */
  readonly covers?: readonly string[];
}

/** One signature as the signing log records it. */
export type SignatureRecord = SignatureAuditEntry;

/** Where signatures are recorded (the audit log); resolves once the record is durable. */
export interface SignatureLog {
  record(entry: SignatureRecord): Promise<void>;
}

/**
 * A custody key as the service uses it: every signature is recorded, with why it was made, before it is returned
 * (design invariant 8: an audit log of every custody signature). A signature whose record fails is never returned.
 */
export interface KeySigner {
  readonly address: string;
  /** Where the key is, safe to log. */
  readonly description: string;
  sign(digest: Uint8Array, context: SigningContext): Promise<string>;
}

/** `signer` with every signature recorded in `log` before it leaves this function. */
export function auditedSigner(signer: CustodySigner, log: SignatureLog): KeySigner {
  return {
    address: signer.address,
    description: signer.description,
    async sign(digest, context) {
      const signature = await signer.sign(digest);
      await log.record({
        ...context,
        signer: signer.address,
        digest: `0x${Buffer.from(digest).toString("hex")}`,
        signature,
      });
      return signature;
    },
  };
}
