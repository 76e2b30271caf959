import type { SafeRecord } from "../model/safeRecord";
import type { SafeTxRecord } from "../../transactions/txRecord";

/** The API's view of a Safe (SafeAccount). */
export function safeView(safe: SafeRecord, deployment: SafeTxRecord | undefined) {
  return {
    address: safe.address,
    chain: safe.chain,
    owners: safe.owners,
    threshold: 1,
    saltNonce: safe.saltNonce.toString(),
    deployment: {
      txUuid: safe.deploymentTxId,
      status: deployment?.status ?? "queued",
      transactionHash: deployment?.transactionHash ?? null,
    },
    createdAt: safe.createdAt,
  };
}
