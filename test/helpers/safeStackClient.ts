import type { JsonRpcProvider } from "ethers";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";

type Json = Record<string, unknown>;

/** A relayer transaction to a Safe, as the pending block shows it. */
export interface PendingRelay {
  readonly hash: string;
  readonly from: string;
  readonly input: string;
}

/**
 * The Safe API of a running local stack as an app holding `appToken`, and the chain's pending relays: for e2e tests
 * that mine blocks by hand around the relayer's transactions.
 */
export function safeStackClient(stack: LocalStack, chain: JsonRpcProvider, appToken: () => string) {
  const api = async (method: "GET" | "POST", route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${stack.apiUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${appToken()}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Json;
  };
  /** Polls `check` every 50 ms for up to 10 s. */
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting until ${what}`);
  };
  return {
    api,
    until,
    /** The Safe request's record once it is included or failed. */
    final: async (safe: string, txUuid: string): Promise<Json> => {
      let view: Json = {};
      await until(async () => {
        view = await api("GET", `/v1/localhost/account/${safe}/tx/${txUuid}`);
        return view.status === "included" || view.status === "failed";
      }, `request ${txUuid} is final`);
      return view;
    },
    /** The relayer's pending transaction to `safe`, once it is in the mempool. */
    pendingRelay: async (safe: string): Promise<PendingRelay> => {
      let found: PendingRelay | undefined;
      await until(async () => {
        const block = (await chain.send("eth_getBlockByNumber", ["pending", true])) as {
          transactions: (PendingRelay & { to: string | null })[];
        };
        found = block.transactions.find((t) => t.to?.toLowerCase() === safe.toLowerCase());
        return found !== undefined;
      }, "the relayer's transaction is pending");
      return found!;
    },
  };
}
