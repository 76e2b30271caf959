import type { ServerResponse } from "node:http";

/** Aborts when the response's connection closes: a status request waiting for a final state stops once no one reads it. */
export function closedSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  // Closed already (the client left while the request was being looked up): aborted now, as no close comes again.
  if (res.closed || res.destroyed) closed.abort();
  else res.on("close", () => closed.abort());
  return closed.signal;
}
