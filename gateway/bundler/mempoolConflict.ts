import type { RpcErrorAnswer } from "./bundlerRpc";

/** ERC-7769's code for an operation refused by ERC-7562's opcode and storage rules (STO-041 among them). */
const OPCODE_VALIDATION = -32502;

/**
 * Why a refusal is a mempool conflict rather than this operation's fault, or undefined: a refusal by the storage rules
 * (-32502) whose reason names another of our wallets whose operation the bundler holds. ERC-7562 keeps one operation
 * from touching a wallet that is the sender of another in the mempool (STO-041), and a bundler that validates an
 * operation on top of the others under its paymaster may blame it for theirs (alto 0.0.18 in safe mode reads the first
 * operation's trace as the new one's: "unstaked account accessed <the other wallet>"). Either ends when that operation
 * is included, so the send is retried as one the bundler did not take.
 */
export function mempoolConflict(
  error: Pick<RpcErrorAnswer, "code" | "message">,
  sender: string,
  inFlight: ReadonlySet<string>,
): string | undefined {
  // Only the storage rules' code: a reason of another kind (an execution's revert data echoed back, which a sender
  // writes) that happens to name one of our wallets is the operation's own refusal.
  if (error.code !== OPCODE_VALIDATION) return undefined;
  const named = error.message.toLowerCase().match(/\b0x[0-9a-f]{40}(?![0-9a-f])/g) ?? [];
  const other = named.find((address) => address !== sender.toLowerCase() && inFlight.has(address));
  return other === undefined ? undefined : `refused while the bundler holds ${other}'s operation: `;
}
