/** One relayer transaction of the built-in bundler: a handleOps bundle, or a Safe relay. */
export interface Bundle {
  readonly id: string;
  readonly chain: string;
  readonly relayer: string;
  readonly nonce: number;
  /** Every version sent, oldest first (fee bumps replace the newest). */
  readonly txHashes: readonly string[];
  readonly rawTx: string;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly status: "pending" | "mined" | "dropped";
  readonly minedTxHash: string | undefined;
  readonly blockNumber: number | undefined;
  readonly sentAt: string;
}

/** A signed relayer transaction about to be broadcast. */
export interface NewBundle {
  readonly chain: string;
  readonly relayer: string;
  readonly nonce: number;
  readonly txHash: string;
  readonly rawTx: string;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}
