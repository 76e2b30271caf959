import express, { Router } from "express";
import type { AppTokens } from "../auth/appTokens";
import { UnsupportedMediaTypeError } from "../errors/apiError";
import type { AdmitAnonymous } from "../http/anonymousLimit";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { type ResolverOptions, resolveUserIds } from "../identity/addressResolver";
import { ResolverRequest } from "./resolver.schema";

// The spec's sample call sends the JSON body as text/plain; read it as JSON too.
const JSON_TYPES = ["application/json", "application/*+json", "text/plain"];

/** POST /v1/resolver: user ids → wallet addresses. */
export function resolverRouter(deps: {
  tokens: AppTokens;
  admitApp: AdmitApp;
  requireAuth: boolean;
  admitAnonymous: AdmitAnonymous;
  resolver: ResolverOptions;
  bodyLimit: string;
  clock: () => Date;
  onResolved?: (count: number) => void;
}): Router {
  return Router().post(
    "/v1/resolver",
    bearerAuth(deps.tokens, deps.requireAuth, deps.admitApp),
    (req, res, next) => void deps.admitAnonymous(req, principalOf(res)).then(() => next(), next),
    express.json({ type: JSON_TYPES, limit: deps.bodyLimit, strict: true }),
    (req, res) => {
      if (req.headers["content-type"] !== undefined && !req.is(JSON_TYPES))
        throw new UnsupportedMediaTypeError(["application/json", "text/plain (JSON text)"]);
      const body = ResolverRequest.parse(req.body);
      const users = resolveUserIds(body.userIds, body.accountType, deps.resolver);
      deps.onResolved?.(users.length);
      res.json({ updatedAt: deps.clock().toISOString(), accountType: body.accountType, users });
    },
  );
}
