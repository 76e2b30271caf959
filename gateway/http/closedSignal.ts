import type { ServerResponse } from "node:http";

/** Aborts when the response's connection closes: a status request waiting for a final state stops once no one reads it. */
export function closedSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  res.on("close", () => closed.abort());
  return closed.signal;
}
