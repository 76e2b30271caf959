import { Router } from "express";
import type { AppTokens } from "../auth/appTokens";
import type { OtpService } from "../auth/otp/otpService";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { JSON_MEDIA_TYPES, jsonBody } from "../http/jsonBody";
import { deadlineOf } from "../http/requestTimeout";
import type { z } from "zod";
import { SignInWithOtpRequest, SignInWithOtpResponse, VerifyOtpRequest, VerifyOtpResponse } from "./otp.schema";

/**
 * The auth server's phone login (spec §4.5, §4.6): POST /functions/v1/signInWithOTP and /functions/v1/verifyOTP.
 * verifyOTP takes an optional app bearer token: with it the user token is bound to that app.
 */
export function otpRouter(deps: { otp: OtpService; bodyLimit: string; tokens: AppTokens; admitApp: AdmitApp }): Router {
  const json = jsonBody({ limit: deps.bodyLimit, mediaTypes: JSON_MEDIA_TYPES });
  return (
    Router()
      .post("/functions/v1/signInWithOTP", ...json, async (req, res) => {
        const body = SignInWithOtpRequest.parse(req.body);
        // req.ip: the socket's address, or the client behind the proxies TRUST_PROXY names.
        const { messageId } = await deps.otp.requestCode(body.phone, req.ip, deadlineOf(res));
        const answer: z.infer<typeof SignInWithOtpResponse> = {
          message: "Code sent",
          user: null,
          session: null,
          messageId,
        };
        res.json(answer);
      })
      // The spec's flow sends no token; a token that is sent must be valid (401 otherwise, the code left unused).
      .post("/functions/v1/verifyOTP", bearerAuth(deps.tokens, false, deps.admitApp), ...json, async (req, res) => {
        const body = VerifyOtpRequest.parse(req.body);
        const session = await deps.otp.verifyCode(
          body.phone,
          body.token,
          req.ip,
          deadlineOf(res),
          principalOf(res)?.appId,
        );
        const answer: z.infer<typeof VerifyOtpResponse> = {
          access_token: session.accessToken,
          token_type: "Bearer",
          expires_in: session.expiresIn,
          user: session.user,
        };
        res.set("Cache-Control", "no-store").json(answer);
      })
  );
}
