import { JsonRpcProvider } from "ethers";
import type { ChainClient } from "../../gateway/chains/clients";
import type { IncomingHttpHeaders } from "node:http";
import type { IdwalletClient, UserLogin } from "@idwallet/client";
import { closeAll, listenOn } from "./fastPathPair";
import { buildTestApp } from "./testApp";

/** One request the served app received, and what it answered. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The status and X-Request-Id of the answer, once it is sent. */
  answer?: { readonly status: number; readonly requestId: string | undefined };
}

/**
 * The API test app (buildTestApp, same arguments) served on a loopback port, as a client package reaches a service:
 * every request it receives is recorded, and a registered app's credentials are handed out.
 */
export async function serveTestApp(...args: Parameters<typeof buildTestApp>) {
  const built = buildTestApp(...args);
  const received: ReceivedRequest[] = [];
  const listening = await listenOn((req, res) => {
    const entry: ReceivedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers };
    received.push(entry);
    res.on("finish", () => {
      const requestId = res.getHeader("x-request-id");
      entry.answer = { status: res.statusCode, requestId: typeof requestId === "string" ? requestId : undefined };
    });
    built.app(req, res);
  });
  const { app, clientSecret } = await built.appWithToken("client package app", true);
  return {
    ...built,
    baseUrl: `http://127.0.0.1:${listening.port}`,
    /** The registered app's credentials, as createIdwalletClient takes them. */
    credentials: { clientId: app.clientId, clientSecret },
    registered: app,
    received,
    /** The requests received to `path` (without query), in order. */
    receivedAt: (method: string, path: string) =>
      received.filter((entry) => entry.method === method && entry.url.split("?")[0] === path),
    /** Logs `phone` in through `client` (signInWithOtp, the texted code, verifyOtp), as an app's backend does. */
    loginPhone: async (client: IdwalletClient, phone: string): Promise<UserLogin> => {
      await client.signInWithOtp({ phone });
      return client.verifyOtp({ phone, code: built.sms.lastCode() });
    },
    close: async () => {
      await closeAll([listening]);
      built.close();
    },
  };
}

/** A test app as serveTestApp serves it. */
export type ServedTestApp = Awaited<ReturnType<typeof serveTestApp>>;

/** A local chain client that is never called (its RPC port is closed): accepting a request touches no chain. */
export const idleChain = (): ChainClient => ({
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
});
