import type { ChainClient } from "../chains/clients";
import { type L1DataFee, createL1DataFee } from "../chains/l1DataFee";
import type { ChainInfo } from "../chains/registry";
import { l1DataGas } from "./l1DataGas";

/**
 * The L1 data fee a request's operation may cost, in gas, reserved from its app's budget at acceptance (registry
 * `l1DataFee`; 0 on other chains, without a node call).
 */
export type L1DataReservation = (chain: ChainInfo, operationBytes: number) => Promise<bigint>;

/**
 * How much more than now the reservation allows for: the build prices the fee again when it sends the operation, and
 * an operation costing more than its request reserved is failed (RESERVATION_EXCEEDED) rather than paid. Between
 * the two, the L1 base fee can rise 12.5 % an L1 block (EIP-1559) and the L2 price fall: twice covers minutes of it.
 */
const RESERVE_MULTIPLE = 2n;
/**
 * Bytes of a Safe relay's call data beyond the Safe call's own data: execTransaction's selector, its ten head words,
 * the data's length and padding, the signatures' length and one padded 65-byte signature (threshold 1), rounded up.
 */
export const SAFE_RELAY_EXTRA_BYTES = 640;

/** How long the chain's gas price read at acceptance holds: about an OP-stack block (2 s). */
const PRICE_TTL_MS = 2_000;

/**
 * Reserves, on a chain that charges an L1 data fee, the fee of the most bytes a request's operation can have (its
 * share of the bundle, as the build counts it: userop/l1DataGas.ts) in gas at the chain's current gas price
 * (eth_gasPrice: its base fee and tip, under the max fee an operation is built with, so this is the more), times
 * RESERVE_MULTIPLE. The oracle and the price are read at most once a block per chain, however many requests come.
 */
export function createL1DataReservation(clients: ReadonlyMap<string, ChainClient>): L1DataReservation {
  const readers = new Map<string, { fee: L1DataFee; price: () => Promise<bigint> }>();
  const readerOf = (client: ChainClient) => {
    let reader = readers.get(client.name);
    if (!reader) {
      reader = { fee: createL1DataFee(client.provider), price: cachedPrice(client) };
      readers.set(client.name, reader);
    }
    return reader;
  };
  return async (chain, operationBytes) => {
    const client = clients.get(chain.name);
    if (!chain.l1DataFee || !client) return 0n;
    const reader = readerOf(client);
    const [quote, price] = await Promise.all([reader.fee.quote(), reader.price()]);
    return RESERVE_MULTIPLE * l1DataGas(quote, operationBytes, price);
  };
}

/** The chain's eth_gasPrice, read again once PRICE_TTL_MS has passed (a failed read is not kept). */
function cachedPrice(client: ChainClient): () => Promise<bigint> {
  let cached: { at: number; price: Promise<bigint> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < PRICE_TTL_MS) return cached.price;
    const price = (client.provider.send("eth_gasPrice", []) as Promise<string>).then(BigInt);
    const entry = { at: now, price };
    cached = entry;
    price.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return price;
  };
}
