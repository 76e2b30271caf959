import type { RpcErrorAnswer } from "./bundlerRpc";

/**
 * Why a refusal is a mempool conflict rather than this operation's fault, or undefined: the bundler's reason names
 * another of our wallets whose operation it holds. ERC-7562 keeps one operation from touching a wallet that is the
 * sender of another in the mempool (STO-041), and a bundler that validates an operation on top of the others under
 * its paymaster may blame it for theirs (alto 0.0.18 in safe mode reads the first operation's trace as the new one's:
 * "unstaked account accessed <the other wallet>"). Either ends when that operation is included, so the send is
 * retried as one the bundler did not take.
 */
export function mempoolConflict(
  error: Pick<RpcErrorAnswer, "message">,
  sender: string,
  inFlight: ReadonlySet<string>,
): string | undefined {
  const named = error.message.toLowerCase().match(/\b0x[0-9a-f]{40}(?![0-9a-f])/g) ?? [];
  const other = named.find((address) => address !== sender.toLowerCase() && inFlight.has(address));
  return other === undefined ? undefined : `refused while the bundler holds ${other}'s operation: `;
}
