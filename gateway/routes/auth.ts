import express, { type ErrorRequestHandler, type Request, type Response, Router } from "express";
import { toApiError } from "../http/problemHandler";
import { type ClientCredentials, OAuthError, type TokenEndpointDeps, issueAppToken } from "../auth/appAuth";
import { TokenRequest } from "./auth.schema";

/** Credentials from `Authorization: Basic` (RFC 6749 §2.3.1: form-urlencoded id and secret). */
function basicCredentials(req: Request): ClientCredentials | undefined {
  const header = req.headers.authorization;
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError(400, "invalid_request", "Malformed Basic credentials");
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw new OAuthError(400, "invalid_request", "Malformed Basic credentials");
  }
}

/** RFC 6749 §5.2: every refusal of the token endpoint carries `error`, validation and body errors too. */
function oauthErrors(bodyLimit: string): ErrorRequestHandler {
  return (error, _req, _res, next) => {
    const known = toApiError(error, bodyLimit);
    if (known && !(known instanceof OAuthError) && known.status === 400) {
      next(new OAuthError(400, "invalid_request", known.message));
      return;
    }
    next(error);
  };
}

/** POST /v1/auth: an app's client id and secret → a 60-minute bearer token (spec §4.1, §5.1). */
export function authRouter(deps: TokenEndpointDeps & { bodyLimit: string }): Router {
  return Router().post(
    "/v1/auth",
    express.urlencoded({ extended: false, limit: deps.bodyLimit, parameterLimit: 20 }),
    async (req: Request, res: Response) => {
      if (
        !req.is("application/x-www-form-urlencoded") &&
        req.headers["content-length"] !== "0" &&
        req.body === undefined &&
        req.headers["content-type"]
      ) {
        throw new OAuthError(400, "invalid_request", "Send application/x-www-form-urlencoded");
      }
      const form = TokenRequest.parse(req.body ?? {});
      if (form.grant_type !== undefined && form.grant_type !== "client_credentials") {
        throw new OAuthError(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported");
      }
      const basic = basicCredentials(req);
      if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) {
        throw new OAuthError(400, "invalid_request", "Send the credentials once: Basic or form, not both");
      }
      const credentials =
        basic ??
        (form.client_id && form.client_secret
          ? { clientId: form.client_id, clientSecret: form.client_secret }
          : undefined);
      if (!credentials) throw new OAuthError(400, "invalid_request", "client_id and client_secret are required");
      // req.ip: the socket's address, or the client behind the proxies TRUST_PROXY names.
      const body = await issueAppToken(deps, { credentials, usedBasic: basic !== undefined, clientIp: req.ip });
      // RFC 6749 §5.1: token responses must not be cached.
      res.set({ "Cache-Control": "no-store", Pragma: "no-cache" }).json(body);
    },
    oauthErrors(deps.bodyLimit),
  );
}
