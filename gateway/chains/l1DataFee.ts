import { AbiCoder, type JsonRpcProvider, dataSlice, id, isCallException } from "ethers";
import { ChainReadError } from "./chainReadError";

/**
 * The OP-stack GasPriceOracle predeploy (OP-stack specs, specs/protocol/predeploys.md). Every OP-stack chain charges
 * each transaction, besides its L2 gas, an L1 data fee for its bytes, which this contract prices.
 */
export const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";

/** The largest transaction priced here: a bundle's call data (MAX_BUNDLE_BYTES) with its envelope, rounded up. */
export const MAX_PRICED_BYTES = 128 * 1024;
/** Bytes the oracle adds for a transaction's signature (specs: Ecotone's `68 * 16` gas, Fjord's `unsignedTxSize + 68`). */
const SIGNATURE_BYTES = 68n;
/** Bytes of the sample that prices the Ecotone formula, which is linear in the bytes (none of them zero). */
const SAMPLE_BYTES = 1024;
/** How long a price holds: about an OP-stack block (2 s), whose L1 attributes set the oracle's parameters. */
const QUOTE_TTL_MS = 2_000;
/** How long a chain whose oracle has no getL1FeeUpperBound (before Fjord) is not asked again. */
const PROBE_AGAIN_MS = 10 * 60_000;

const UPPER_BOUND = dataSlice(id("getL1FeeUpperBound(uint256)"), 0, 4);
const GET_L1_FEE = dataSlice(id("getL1Fee(bytes)"), 0, 4);
const abi = AbiCoder.defaultAbiCoder();

/** The L1 data fee of one block: what any number of bytes of a transaction can be charged. */
export interface L1FeeQuote {
  /** The most L1 fee (wei) of `bytes` bytes of an unsigned transaction (at most MAX_PRICED_BYTES), rounded up. */
  feeOf(bytes: number): bigint;
}

/** The L1 data fee of a chain that charges one, read from its oracle at most once a block however many ask. */
export interface L1DataFee {
  quote(): Promise<L1FeeQuote>;
}

/**
 * Reads a chain's GasPriceOracle. After Fjord, getL1FeeUpperBound(MAX_PRICED_BYTES) is the fee of the largest
 * transaction whatever its bytes (specs/protocol/fjord/predeploys.md: the FastLZ bound "txSize + txSize / 255 + 16");
 * before, getL1Fee of a sample of non-zero bytes, the costliest under Ecotone's formula (specs/protocol/exec-engine.md,
 * "Ecotone L1-Cost fee changes"). Either fee is linear in the transaction's bytes with its signature's 68 (Fjord's
 * with a negative intercept, so scaling down from the largest size overstates it; its minimum size binds only below
 * 200 bytes, far under any operation), so one read prices every size: fee(n) ≤ fee(ref) × (n + 68) / (ref + 68).
 */
export function createL1DataFee(provider: JsonRpcProvider, clock: () => number = Date.now): L1DataFee {
  let cached: { at: number; quote: Promise<L1FeeQuote> } | undefined;
  let noUpperBoundUntil = 0;

  const call = (data: string): Promise<string> =>
    provider.send("eth_call", [{ to: GAS_PRICE_ORACLE, data }, "latest"]) as Promise<string>;
  const decoded = (answer: string): bigint => {
    try {
      return abi.decode(["uint256"], answer)[0] as bigint;
    } catch {
      throw new ChainReadError("the chain's GasPriceOracle answered no fee");
    }
  };
  // The oracle rounds its fee down: one wei more is above the exact fee, which then scales down without loss.
  const linear = (reference: number, fee: bigint): L1FeeQuote => ({
    feeOf: (bytes) => {
      const numerator = (fee + 1n) * (BigInt(bytes) + SIGNATURE_BYTES);
      const denominator = BigInt(reference) + SIGNATURE_BYTES;
      return (numerator + denominator - 1n) / denominator;
    },
  });

  const read = async (now: number): Promise<L1FeeQuote> => {
    if (now >= noUpperBoundUntil) {
      try {
        const answer = await call(UPPER_BOUND + abi.encode(["uint256"], [MAX_PRICED_BYTES]).slice(2));
        if (answer !== "0x") return linear(MAX_PRICED_BYTES, decoded(answer));
      } catch (error) {
        if (!isCallException(error) && !isRevert(error)) throw error;
      }
      noUpperBoundUntil = now + PROBE_AGAIN_MS;
    }
    const sample = `0x${"ff".repeat(SAMPLE_BYTES)}`;
    return linear(SAMPLE_BYTES, decoded(await call(GET_L1_FEE + abi.encode(["bytes"], [sample]).slice(2))));
  };

  return {
    quote() {
      const now = clock();
      if (cached && now - cached.at < QUOTE_TTL_MS) return cached.quote;
      const quote = read(now);
      cached = { at: now, quote };
      // A failed read is not kept: the next caller asks again.
      quote.catch(() => {
        if (cached?.quote === quote) cached = undefined;
      });
      return quote;
    },
  };
}

/** A node's answer to a call into a missing function: a revert (JSON-RPC error 3, or a message saying so). */
function isRevert(error: unknown): boolean {
  const e = error as { error?: { code?: number; message?: string }; code?: number; message?: string } | undefined;
  const code = e?.error?.code ?? e?.code;
  const message = `${e?.error?.message ?? ""} ${e?.message ?? ""}`;
  return code === 3 || /revert/i.test(message);
}
