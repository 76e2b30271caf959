import type { AppPrincipal } from "./appTokens";
import { ApiError } from "../errors/apiError";
import { InvalidUserIdError, type UserId, parseUserId } from "../identity/userId";
import type { App } from "./app";

/** The user id of a request, or 400 INVALID_USER_ID naming it. */
export function requestUserId(input: string): UserId {
  try {
    return parseUserId(input);
  } catch (error) {
    if (!(error instanceof InvalidUserIdError)) throw error;
    throw new ApiError(400, "INVALID_USER_ID", "Invalid user id", error.reason, { userId: input.slice(0, 64) });
  }
}

/** The app a token was issued to, still registered (a token can outlive its app): as admitted on this request, if it was. */
export async function actingApp(
  principal: AppPrincipal,
  findApp: (appId: string) => Promise<App | undefined>,
): Promise<App> {
  const app = principal.app ?? (await findApp(principal.appId));
  if (!app) throw new ApiError(401, "APP_DISABLED", "Unauthorized", "The app this token was issued to is gone");
  return app;
}
