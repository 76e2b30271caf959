import { hashConsoleSecret, newConsoleSecret } from "../consoleSecrets";
import type { ConsoleRepository } from "../consoleRepository";

/** The path a one-time link opens: its page posts the secret to the login form (a link preview uses nothing up). */
export const CONSOLE_OPEN_PATH = "/console/open";

/**
 * A new one-time console link for `label`, valid `ttlSeconds` from now: only its hash is stored, so the secret is in
 * the link alone (printed once by `npm run admin -- console open`).
 */
export async function createConsoleLink(
  sessions: Pick<ConsoleRepository, "createLink">,
  clock: () => Date,
  ttlSeconds: number,
  label: string,
): Promise<{ readonly path: string; readonly expiresAt: Date }> {
  const secret = newConsoleSecret();
  const expiresAt = new Date(clock().getTime() + ttlSeconds * 1000);
  await sessions.createLink({ tokenHash: hashConsoleSecret(secret), label, expiresAt });
  return { path: `${CONSOLE_OPEN_PATH}?link=${secret}`, expiresAt };
}
