import type { RequestHandler, Response } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import type { App } from "../auth/app";
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE, UnauthorizedError } from "../errors/apiError";

/** The app a request was authenticated as, if any (set by the bearer middleware). */
export const principalOf = (res: Response): AppPrincipal | undefined =>
  res.locals.principal as AppPrincipal | undefined;

// RFC 6750 §2.1: "Bearer" then one b64token.
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

/**
 * Whether the app behind a verified token may still use it: the app if so; throws a 401 ApiError if not
 * (auth/appAuth.ts).
 */
export type AdmitApp = (principal: AppPrincipal) => Promise<App>;

/**
 * The app an `Authorization: Bearer <token>` header authenticates: undefined without a header where none is
 * `required`; a header that is present must still be valid, and admitted by `admitApp` (401 otherwise).
 */
export async function authenticate(
  header: string | undefined,
  tokens: AppTokens,
  required: boolean,
  admitApp: AdmitApp,
): Promise<AppPrincipal | undefined> {
  // RFC 6750 §3.1: a request without a bearer token (none, or another scheme) gets a challenge with no error code.
  if (header === undefined) {
    if (required)
      throw new UnauthorizedError(
        "MISSING_TOKEN",
        "Send Authorization: Bearer <the app token from POST /v1/auth>",
        BEARER_CHALLENGE,
      );
    return undefined;
  }
  const match = BEARER.exec(header);
  if (!match) {
    const bearerScheme = /^bearer(\s|$)/i.test(header);
    throw new UnauthorizedError(
      "MALFORMED_TOKEN",
      bearerScheme
        ? "The Authorization header is not 'Bearer <token>': one space, then the token from POST /v1/auth"
        : "The Authorization header is not of the Bearer scheme: send Authorization: Bearer <the app token from " +
            "POST /v1/auth>",
      bearerScheme ? INVALID_TOKEN_CHALLENGE : BEARER_CHALLENGE,
    );
  }
  const principal = await tokens.verify(match[1]!);
  // Against the stored app on every request, after the verified-token cache: disabling an app or rotating its
  // secret stops its live tokens at once.
  // A fresh object per request: the verified principal may be shared by every request of the token.
  return { ...principal, app: await admitApp(principal), token: match[1]! };
}

/**
 * Authenticates `Authorization: Bearer <token>` as {@link authenticate} does. With `required` false a request without
 * the header passes anonymously, at once.
 */
export function bearerAuth(tokens: AppTokens, required: boolean, admitApp: AdmitApp): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined && !required) return next();
    authenticate(header, tokens, required, admitApp).then((principal) => {
      res.locals.principal = principal;
      next();
    }, next);
  };
}
