import type { BuiltUserOp } from "../transactions/builtOp";
import type { TxOutcome } from "../transactions/txOutcome";
import type { TxError, WalletTxRecord } from "../transactions/txRecord";
import { giveUp, nextAttemptAt } from "../relaying/retryPolicy";
import type { WorkerContext } from "../relaying/workerContext";
import { sponsorshipEnd } from "../userop/sponsorship";

/** The stable code of a request whose sends the external bundler never took (docs/transactions.md). */
const BUNDLER_UNAVAILABLE = "BUNDLER_UNAVAILABLE";

/**
 * What becomes of a request whose operation the external bundler did not take, as far as it said: no hash and no
 * refusal (`reason`: an HTTP error status such as 500, 502 or 429; no answer in time; a connection refused or closed;
 * a JSON-RPC error that is no refusal). It may have taken it all the same (a proxy's 502 in front of a bundler that
 * did), so the request is never failed while that build could still run:
 * - sends left (`TX_MAX_ATTEMPTS`, this one counted): back to the queue after the retry delay, doubled per send. The
 *   next build is simulated against the chain first, which finds the request's nonce key used if a build ran (AA25,
 *   then the executed operation is looked up: `included`), and every build shares that nonce, so at most one runs;
 * - out of sends: closed once no build of it can run any more, its latest build's sponsorship ended (retryPolicy's
 *   giveUp): `included` if one ran, else `failed` BUNDLER_UNAVAILABLE.
 * `tx` is the request as it was before this send (`built`).
 */
export function outcomeOfUntakenSend(
  context: WorkerContext,
  tx: WalletTxRecord,
  built: BuiltUserOp,
  reason: string,
): TxOutcome {
  const error: TxError = {
    code: BUNDLER_UNAVAILABLE,
    message: `the bundler did not take the operation: ${reason}`.slice(0, 500),
  };
  const sends = tx.attempts + 1;
  if (sends < context.maxAttempts) return { status: "queued", nextAttemptAt: nextAttemptAt(context, sends), error };
  return giveUp(context, error, latestSponsorshipEnd([tx.userOp?.paymasterAndData, built.userOp.paymasterAndData]));
}

/** The last second any of these builds could run (their sponsorships' ends); undefined if none says. */
function latestSponsorshipEnd(paymasterAndData: readonly (string | undefined)[]): number | undefined {
  const ends = paymasterAndData.flatMap((data) => {
    const end = data === undefined ? undefined : sponsorshipEnd(data);
    return end === undefined ? [] : [end];
  });
  return ends.length === 0 ? undefined : Math.max(...ends);
}
