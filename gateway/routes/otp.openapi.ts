import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import { JSON_BODY_MEDIA_TYPE, problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { SignInWithOtpRequest, SignInWithOtpResponse, VerifyOtpRequest, VerifyOtpResponse } from "./otp.schema";

const TAG: ApiTag = "Phone login";
const PHONE = "+14155552671";

/** POST /functions/v1/signInWithOTP and /functions/v1/verifyOTP (the otp router) in the OpenAPI document. */
export function registerOtpPaths(registry: OpenAPIRegistry, bearer: string): void {
  registry.registerPath({
    method: "post",
    path: "/functions/v1/signInWithOTP",
    operationId: "signInWithOtp",
    security: [{}],
    tags: [TAG],
    summary: "Send a 6-digit login code by SMS (US/Canada +1 numbers)",
    description:
      "Part of the auth server ({auth_url}); also served on AUTH_PORT when set. The code is valid 5 minutes; " +
      "every code sent in the last OTP_TTL_SECONDS works until one logs in; resends wait for a cooldown.",
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: SignInWithOtpRequest, example: { phone: PHONE } } },
      },
    },
    responses: {
      200: {
        description: "Code sent",
        content: {
          "application/json": {
            schema: SignInWithOtpResponse,
            example: {
              message: "Code sent",
              user: null,
              session: null,
              messageId: "SM8f2b6c1e4a9d3f7b0c5e2a1d4f6b8c9e",
            },
          },
        },
      },
      400: problem`${"INVALID_PHONE"}, ${"INVALID_REQUEST"}`,
      429: problem`${"OTP_COOLDOWN"}, ${"RATE_LIMITED"}, ${"SMS_BUDGET_EXHAUSTED"} (with Retry-After)`,
      502: problem`${"SMS_DELIVERY_FAILED"}`,
      415: JSON_BODY_MEDIA_TYPE,
      503: problem`${"MAINTENANCE"}`,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/functions/v1/verifyOTP",
    operationId: "verifyOtp",
    tags: [TAG],
    summary: "Exchange the code for a user token (the `auth` proof of tel: ids)",
    description:
      "The app's bearer token is optional (the spec's flow sends none). With it, the user token is bound to that app " +
      "(`azp`): no other app may use it. A token that is sent must be valid; otherwise 401 and the code stays unused.",
    security: [{}, { [bearer]: [] }],
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: VerifyOtpRequest, example: { phone: PHONE, token: "123456" } } },
      },
    },
    responses: {
      200: {
        description: "A user token naming tel:<digits>, bound to the app when it sent its bearer token",
        content: {
          "application/json": {
            schema: VerifyOtpResponse,
            example: {
              access_token: EXAMPLE.userToken,
              token_type: "Bearer",
              expires_in: 3600,
              user: { id: EXAMPLE.userId, phone: PHONE },
            },
          },
        },
      },
      400: problem`${"INVALID_PHONE"}, ${"INVALID_REQUEST"}`,
      401: problem`${"INVALID_OTP"} (with retryAfter after a wrong code), ${"OTP_EXPIRED"}; a bearer token that was
        sent and does not authenticate: ${"MALFORMED_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"},
        ${"APP_DISABLED"}`,
      415: JSON_BODY_MEDIA_TYPE,
      503: problem`${"MAINTENANCE"}`,
    },
  });
}
