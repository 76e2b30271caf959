import { Router } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { jsonBody } from "../http/jsonBody";
import { type WalletSigningDeps, signForUser } from "../accept/walletSigning";
import { SignRequestBody } from "./kernelSign.schema";

/** POST /v1/kernel/sign: the wallet's EIP-1271 signature over a hash (spec §4.4); bearer token and user proof. */
export function kernelSignRouter(deps: {
  tokens: AppTokens;
  admitApp: AdmitApp;
  bodyLimit: string;
  signing: WalletSigningDeps;
}): Router {
  return Router().post(
    "/v1/kernel/sign",
    bearerAuth(deps.tokens, true, deps.admitApp),
    ...jsonBody({ limit: deps.bodyLimit }),
    async (req, res) => {
      const body = SignRequestBody.parse(req.body);
      res.json(await signForUser(body, principalOf(res) as AppPrincipal, deps.signing));
    },
  );
}
