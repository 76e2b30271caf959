import { z } from "zod";
import { ChainName } from "./chains/evmSchemas";

/** Starts a chain's transaction worker loop now rather than at its next poll: new work for it was accepted. */
export interface WorkerWaker {
  wake(chain: string): void;
}

/** What an HTTP worker sends its primary after accepting a transaction or Safe request on `chain`. */
const WakeMessage = z.object({ type: z.literal("wake"), chain: ChainName });
type WakeMessage = z.infer<typeof WakeMessage>;

/**
 * The waker of a cluster worker process: the loops run in the primary, so each wake is a message to it
 * (`send` is `process.send`). Per chain at most one message is in flight and at most one more is due: wakes
 * while a message is being written are folded into one sent after it, so a flood of accepted requests costs
 * a message per write, not per request, and the last wake is always followed by a message sent after it.
 * A closed channel (the primary is going away) drops the wake: the loop's poll still finds the request.
 */
export function createPrimaryWaker(
  send: ((message: WakeMessage, callback: (error: Error | null) => void) => boolean) | undefined,
  connected: () => boolean,
): WorkerWaker {
  const inFlight = new Set<string>();
  const due = new Set<string>();
  const post = (chain: string): void => {
    if (!send || !connected()) return;
    inFlight.add(chain);
    const sent = (error: Error | null) => {
      inFlight.delete(chain);
      if (due.delete(chain) && !error) post(chain);
    };
    try {
      send({ type: "wake", chain }, sent);
    } catch {
      // The channel closed between the check and the send.
      inFlight.delete(chain);
      due.delete(chain);
    }
  };
  return {
    wake: (chain) => {
      if (inFlight.has(chain)) due.add(chain);
      else post(chain);
    },
  };
}

/**
 * In the primary: wakes `waker` for a worker's wake message. Anything else a worker sends (its "listening"
 * report, a malformed or unknown message, a chain this service does not know) is left alone: returns false.
 */
export function handleWakeMessage(message: unknown, waker: WorkerWaker): boolean {
  const parsed = WakeMessage.safeParse(message);
  if (!parsed.success) return false;
  waker.wake(parsed.data.chain);
  return true;
}
