import { type IncomingHttpHeaders, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got. */
export interface ReceivedHook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed: Standard Webhooks' `{ type, timestamp, data }`. */
  readonly event: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** How the receiver answers one request: a status, or never (the connection is held open until the test ends). */
export type Answer = number | "hang";

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request and answers each with the next of
 * `answers` (then 200 for the rest).
 */
export async function startWebhookReceiver(answers: Answer[] = []) {
  const received: ReceivedHook[] = [];
  const held: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body, event: JSON.parse(body) as ReceivedHook["event"] });
      for (const wake of waiters.splice(0)) wake();
      const answer = answers.shift() ?? 200;
      if (answer === "hang") held.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    answers,
    /** Waits until `check` holds of what was received (30 s at most). */
    until: async (check: (received: readonly ReceivedHook[]) => boolean, what: string): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (!check(received)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
