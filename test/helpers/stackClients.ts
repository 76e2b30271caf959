import { readFileSync } from "node:fs";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { postJson } from "./http";

/** An access token of the stack's demo app (OAuth client credentials). */
export async function demoAppToken(stack: LocalStack): Promise<string> {
  const auth = await fetch(`${stack.apiUrl}/v1/auth`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: stack.demoApp.clientId, client_secret: stack.demoApp.clientSecret }),
  });
  return ((await auth.json()) as { access_token: string }).access_token;
}

/** Logs `phone` in by OTP as a user would: the code is read from the stack's SMS outbox. Returns the user token. */
export async function phoneLogin(stack: LocalStack, phone: string): Promise<string> {
  const sent = await postJson(`${stack.apiUrl}/functions/v1/signInWithOTP`, { phone });
  if (sent.status !== 200) throw new Error(`signInWithOTP answered ${sent.status}`);
  const verified = await postJson(`${stack.apiUrl}/functions/v1/verifyOTP`, { phone, token: lastLoginCode(stack) });
  return verified.body.access_token as string;
}

/** The code of the last login text the stack sent: read from its SMS outbox, as the phone's owner would read it. */
export function lastLoginCode(stack: LocalStack): string {
  const message = JSON.parse(readFileSync(stack.config.sms.outboxPath!, "utf8").trim().split("\n").at(-1)!) as {
    text: string;
  };
  return /\b(\d{6})\b/.exec(message.text)![1]!;
}
