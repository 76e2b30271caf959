import { expect } from "chai";

/** One call of a transaction request, as the API takes it. */
export interface CallInput {
  readonly to: string;
  readonly value?: bigint;
  readonly data: string;
}

/** The fields of a transaction record the e2e tests read. */
export interface TxView {
  readonly status: string;
  readonly success: boolean | null;
  readonly sender: string;
  readonly userOpHash: string | null;
  readonly transactionHash: string | null;
  readonly error?: { readonly code: string; readonly message?: string } | null;
}

/**
 * POST /v1/kernel/tx and GET /v1/kernel/tx/{id} against a running service, as an app holding `appToken` and each
 * user's proof from `userToken`.
 */
export function serviceRequests(url: string, appToken: string, userToken: (userId: string) => Promise<string>) {
  const headers = { Authorization: `Bearer ${appToken}` };
  const view = async (id: string, wait = false): Promise<TxView> =>
    (await (await fetch(`${url}/v1/kernel/tx/${id}${wait ? "?wait=true" : ""}`, { headers })).json()) as TxView;
  return {
    /** Submits `calls` from `userId`'s wallet; expects 202 and returns the request id. */
    submit: async (userId: string, calls: readonly CallInput[]): Promise<string> => {
      const res = await fetch(`${url}/v1/kernel/tx`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({
          userId,
          chain: "localhost",
          to: calls.map((c) => c.to),
          value: calls.map((c) => (c.value ?? 0n).toString()),
          data: calls.map((c) => c.data),
          auth: await userToken(userId),
        }),
      });
      expect(res.status, await res.clone().text()).to.equal(202);
      return ((await res.json()) as { id: string }).id;
    },
    view,
    /** Waits (`?wait=true`, up to `rounds` times) until the request is included or failed; returns that record. */
    final: async (id: string, rounds = 5): Promise<TxView> => {
      let current = await view(id);
      for (let round = 0; round < rounds && !["included", "failed"].includes(current.status); round++) {
        current = await view(id, true);
      }
      return current;
    },
  };
}
