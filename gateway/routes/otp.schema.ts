import { z } from "zod";

const Phone = z.string().min(1).max(64).meta({
  description: "US or Canada phone number with the +1 prefix",
  example: "+14155552671",
});

/** POST /functions/v1/signInWithOTP body (spec §4.5). */
export const SignInWithOtpRequest = z.object({ phone: Phone }).meta({ id: "SignInWithOtpRequest" });

/** POST /functions/v1/signInWithOTP answer (spec §4.5). */
export const SignInWithOtpResponse = z
  .object({
    message: z.string().meta({ example: "Code sent" }),
    user: z.null(),
    session: z.null(),
    messageId: z.string().meta({ description: "The SMS provider's id of the message" }),
  })
  .meta({ id: "SignInWithOtpResponse" });

/** POST /functions/v1/verifyOTP body (spec §4.6). */
export const VerifyOtpRequest = z
  .object({
    phone: Phone,
    token: z
      .string()
      .trim()
      .regex(/^\d{6}$/, "the 6-digit code")
      .meta({ description: "The 6-digit code from the SMS", example: "123456" }),
  })
  .meta({ id: "VerifyOtpRequest" });

/** POST /functions/v1/verifyOTP answer: the user token to pass as `auth` (spec §4.6, §5.2). */
export const VerifyOtpResponse = z
  .object({
    access_token: z.string().meta({ description: "JWT naming the user id; the `auth` of transaction requests" }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ description: "Seconds until the token expires", example: 3600 }),
    user: z.object({
      id: z.string().meta({ example: "tel:14155552671" }),
      phone: z.string().meta({ example: "+14155552671" }),
    }),
  })
  .meta({ id: "VerifyOtpResponse" });
