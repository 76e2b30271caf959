import type { AppPrincipal } from "../auth/appTokens";
import type { ChainClient } from "../chains/clients";
import { chainByName } from "../chains/registry";
import { ApiError } from "../errors/apiError";
import { InvalidUserIdError, type UserId, parseUserId } from "../identity/userId";
import type { App } from "../storage/appsRepository";

/** The user id of a request, or 400 INVALID_USER_ID naming it. */
export function requestUserId(input: string): UserId {
  try {
    return parseUserId(input);
  } catch (error) {
    if (!(error instanceof InvalidUserIdError)) throw error;
    throw new ApiError(400, "INVALID_USER_ID", "Invalid user id", error.reason, { userId: input.slice(0, 64) });
  }
}

/** The client of a chain the API serves: 400 UNKNOWN_CHAIN if the registry has no such chain, CHAIN_NOT_AVAILABLE if not served. */
export function servedChain(name: string, chains: ReadonlyMap<string, ChainClient>): ChainClient {
  const chain = chainByName(name);
  if (!chain) throw new ApiError(400, "UNKNOWN_CHAIN", "Unknown chain", `No chain is named ${name}`);
  const client = chains.get(name);
  if (!client || chain.api !== "live")
    throw new ApiError(400, "CHAIN_NOT_AVAILABLE", "Chain not available", `${name} is not served by this deployment`);
  return client;
}

/** The app a token was issued to, still registered (a token can outlive its app). */
export async function actingApp(
  principal: AppPrincipal,
  findApp: (appId: string) => Promise<App | undefined>,
): Promise<App> {
  const app = await findApp(principal.appId);
  if (!app) throw new ApiError(401, "APP_DISABLED", "Unauthorized", "The app this token was issued to is gone");
  return app;
}
