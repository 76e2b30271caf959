/** A delivery a claim may take (pending, due, unclaimed, next in its request's order), with whose it is. */
export interface ClaimCandidate {
  readonly id: string;
  readonly endpointId: string;
  readonly appId: string;
}

/** Attempts in flight to one endpoint (claimed and not yet recorded, by any process), with its app. */
export interface AttemptsInFlight {
  readonly endpointId: string;
  readonly appId: string;
  readonly count: number;
}

/** How many attempts may be in flight to one endpoint and to one app's endpoints together (none: no limit). */
export interface DeliveryShares {
  readonly perEndpoint?: number;
  readonly perApp?: number;
}

/**
 * Rounds of candidates a claim reads: past the first, each reads the next `limit`, passing over those of endpoints and
 * apps already at their share of attempts in flight.
 */
const MAX_ROUNDS = 4;

/**
 * The deliveries a claim takes, in the order the store offers them (earliest due first, then in recording order): up
 * to `limit`, and no more than `shares.perEndpoint` of one endpoint and `shares.perApp` of one app in flight, counting
 * those already `inFlight` in every process, so an app whose receivers hang holds a share of the attempts, not all of
 * them. `readNext(seen)` reads the next `limit` candidates past those already seen; at most MAX_ROUNDS are read.
 */
export async function chooseWithinShares(request: {
  readonly limit: number;
  readonly shares: DeliveryShares;
  readonly inFlight: readonly AttemptsInFlight[];
  readonly readNext: (seen: readonly string[]) => Promise<readonly ClaimCandidate[]>;
}): Promise<string[]> {
  const { limit, shares } = request;
  const endpoints = new Map<string, number>();
  const apps = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
  for (const flight of request.inFlight) {
    add(endpoints, flight.endpointId, flight.count);
    add(apps, flight.appId, flight.count);
  }
  const chosen: string[] = [];
  const seen: string[] = [];
  for (let round = 0; round < MAX_ROUNDS && chosen.length < limit; round++) {
    const batch = await request.readNext(seen);
    for (const candidate of batch) {
      seen.push(candidate.id);
      if (chosen.length === limit) break;
      if ((endpoints.get(candidate.endpointId) ?? 0) >= (shares.perEndpoint ?? Infinity)) continue;
      if ((apps.get(candidate.appId) ?? 0) >= (shares.perApp ?? Infinity)) continue;
      chosen.push(candidate.id);
      add(endpoints, candidate.endpointId, 1);
      add(apps, candidate.appId, 1);
    }
    if (batch.length < limit) break;
  }
  return chosen;
}
