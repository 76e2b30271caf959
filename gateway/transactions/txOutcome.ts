import type { TxError } from "./txRecord";

/** What became of a request's UserOperation, and the gas its mined relayer transaction burned, if any. */
export type TxOutcome = (
  | {
      readonly status: "included";
      /** Unknown only when the operation's nonce is used but its event was not found (EXECUTED_UNTRACED). */
      readonly transactionHash?: string;
      readonly blockNumber?: number;
      readonly success?: boolean;
      readonly error?: TxError;
      /** Gas it cost the operator, if known; unknown keeps the gas reserved at acceptance. */
      readonly gasUsed?: bigint;
    }
  | {
      readonly status: "failed";
      readonly error: TxError;
      readonly transactionHash?: string;
      readonly blockNumber?: number;
      /** Gas it cost the operator, if it ran on chain; unknown: nothing (it never ran). */
      readonly gasUsed?: bigint;
    }
  /**
   * Back to the queue from `nextAttemptAt`: to be built again (its nonce key keeps it single-use), or, with
   * `closeWhenDue`, only to be closed then (out of attempts: included if an earlier build ran, else failed).
   */
  | {
      readonly status: "queued";
      readonly nextAttemptAt: Date;
      readonly error?: TxError;
      readonly closeWhenDue?: boolean;
      /**
       * The send that ended this way does not count as an attempt: its whole bundle reverted on chain, for a reason
       * the next build re-checks (another operation, or an outsider who front-ran the bundle), not for this one.
       */
      readonly uncharged?: boolean;
    }
) & {
  /**
   * The gasUsed of a mined relayer transaction sent for this request alone (a Safe relay), whatever became of it:
   * added to the request's spent gas, which a final request settles to (with `gasUsed` on top, if given).
   */
  readonly spentGas?: bigint;
};
