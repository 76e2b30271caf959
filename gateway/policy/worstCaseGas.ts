import type { TxCall } from "../transactions/txRecord";

/**
 * Ceiling of the verification gas of one operation: the account's validation with its deployment (initCode) and the
 * SponsorPaymaster's validation. The builder measures these per operation (far less in practice); the ceiling only
 * sizes the reservation, which settlement replaces with the real cost.
 */
export const VERIFICATION_GAS_CEILING = 1_000_000n;
/** Fixed part of preVerificationGas (or of a relayed Safe transaction's intrinsic gas), beyond its call data. */
export const FIXED_OVERHEAD_GAS = 60_000n;
/** Most gas of the relayer's transaction for a Safe request (the cap in safe/relay/safeRelayGas.ts). */
export const SAFE_RELAY_GAS_CEILING = 15_000_000n;
/** Gas per byte of call data (EIP-2028's non-zero byte), the most a byte can cost on chain. */
const GAS_PER_CALL_DATA_BYTE = 16n;

/**
 * The most gas a request can cost the operator, reserved from the app's budget at acceptance: the call gas cap
 * (TX_MAX_CALL_GAS: an operation needing more is refused, never sent), the verification ceiling, and its call data
 * at 16 gas a byte with the fixed overhead. A Safe request is sent by the relayer in a transaction of its own,
 * whose gas limit the relay caps at {@link SAFE_RELAY_GAS_CEILING}. On a chain that charges an L1 data fee, the
 * relayer pays it too (for a wallet request, through the operation's preVerificationGas): `l1DataGas`, the fee of its
 * bytes in gas with a margin (userop/l1DataReservation.ts), is added, so the budget bounds the L1 fees an app makes
 * the operator pay too.
 */
export function worstCaseGas(
  calls: readonly TxCall[],
  account: "wallet" | "safe",
  maxCallGas: number,
  l1DataGas = 0n,
): bigint {
  if (account === "safe") return SAFE_RELAY_GAS_CEILING + l1DataGas;
  const bytes = calls.reduce((sum, call) => sum + BigInt((call.data.length - 2) / 2), 0n);
  const l2 = BigInt(maxCallGas) + VERIFICATION_GAS_CEILING + FIXED_OVERHEAD_GAS + GAS_PER_CALL_DATA_BYTE * bytes;
  return l2 + l1DataGas;
}
