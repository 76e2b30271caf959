import type { Bundle } from "../../transactions/bundle";

/**
 * The nonce of the relayer's next transaction: the lowest at or above its mined nonce that no pending bundle of ours
 * holds. A bundle refused or dropped between pending ones leaves a gap there, which the next transaction fills: a
 * nonce gap never outlives the next send, and the bundles above it are never left unminable.
 */
export function nextRelayerNonce(minedNonce: number, pending: readonly Bundle[], relayer: string): number {
  const held = new Set(pending.filter((b) => b.relayer === relayer).map((b) => b.nonce));
  let nonce = minedNonce;
  while (held.has(nonce)) nonce++;
  return nonce;
}

/** Whether a pending bundle of `relayer` waits above a nonce that no pending bundle of ours holds (see above). */
export function hasNonceGap(minedNonce: number, pending: readonly Bundle[], relayer: string): boolean {
  const next = nextRelayerNonce(minedNonce, pending, relayer);
  return pending.some((b) => b.relayer === relayer && b.nonce > next);
}

/**
 * The pending bundles that are next in line (see RelayerStanding): by relayer, those whose nonce and every one
 * below it down to the relayer's mined nonce are held by pending bundles of ours.
 */
export function inLine(minedNonces: ReadonlyMap<string, number>, pending: readonly Bundle[]): Set<string> {
  const lined = new Set<string>();
  for (const [relayer, minedNonce] of minedNonces) {
    const next = nextRelayerNonce(minedNonce, pending, relayer);
    for (const b of pending) if (b.relayer === relayer && b.nonce < next) lined.add(b.id);
  }
  return lined;
}
