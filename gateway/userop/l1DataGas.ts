import type { L1FeeQuote } from "../chains/l1DataFee";

/**
 * Bytes of a bundle transaction beyond its operations: the unsigned EIP-1559 envelope (chain id, nonce, fees, gas,
 * to, value, empty access list and their RLP lengths: under 100) and handleOps's selector, beneficiary, array offset
 * and length (4 + 3 × 32). Every operation is charged all of them, as if alone in its bundle.
 */
export const BUNDLE_ENVELOPE_BYTES = 200;

/**
 * The L1 data fee of an operation's share of its bundle (its `operationBytes` and the whole envelope), in gas at
 * `gasPrice`, rounded up: what an OP-stack bundler adds to preVerificationGas (the EntryPoint then charges the
 * paymaster for it like gas used, and its actualGasUsed counts it) so that the L1 fee the relayer pays for the
 * operation's bytes is paid back at the operation's fee.
 */
export function l1DataGas(quote: L1FeeQuote, operationBytes: number, gasPrice: bigint): bigint {
  const fee = quote.feeOf(operationBytes + BUNDLE_ENVELOPE_BYTES);
  const price = gasPrice > 0n ? gasPrice : 1n;
  return (fee + price - 1n) / price;
}
