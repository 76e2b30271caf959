import type { Request, Response } from "express";
import type { ConsoleSettings } from "../../config/consoleSettings";
import {
  TOKEN_SESSION_LABEL,
  csrfTokenOf,
  hashConsoleSecret,
  newConsoleSecret,
  sameSecret,
  tokenSessionLabel,
} from "../consoleSecrets";
import type { ConsoleDeps } from "../service/consoleDeps";

/** The session cookie; scoped to /console, so no other route of the service ever receives it. */
export const SESSION_COOKIE = "idwallet_console";

/** A request's open console session: whose it is, and the CSRF token its forms carry. */
export interface OpenSession {
  readonly idHash: string;
  readonly label: string;
  readonly csrf: string;
}

/** The session cookie's value, if the request carries one. */
function sessionCookie(req: Request): string | undefined {
  for (const part of (req.get("cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=");
  }
  return undefined;
}

/**
 * The request's session, if its cookie names one that is open. An Authorization header is never looked at. A session
 * CONSOLE_TOKEN opened lives only while that token is the configured one: rotating the token (after a leak, or a
 * stolen cookie) closes every session the old one opened.
 */
export async function sessionOf(
  req: Request,
  deps: ConsoleDeps,
  settings: ConsoleSettings,
): Promise<OpenSession | undefined> {
  const id = sessionCookie(req);
  if (!id) return undefined;
  const idHash = hashConsoleSecret(id);
  const found = await deps.sessions.findSession(idHash, deps.views.clock());
  if (!found) return undefined;
  if (found.label.startsWith(`${TOKEN_SESSION_LABEL} `)) {
    if (settings.token === undefined || found.label !== tokenSessionLabel(settings.token)) {
      await deps.sessions.closeSession(idHash);
      return undefined;
    }
  }
  return { idHash, label: found.label, csrf: csrfTokenOf(id) };
}

/**
 * Whether the request came from another site: Fetch Metadata (`Sec-Fetch-Site`) when the browser sends it, else an
 * `Origin` other than this service's own. Such a request changes nothing (OWASP CSRF cheat sheet: both defences,
 * beside the session's token).
 */
export function crossSite(req: Request): boolean {
  const site = req.get("sec-fetch-site");
  // A browser that sends it says it best (under Referrer-Policy: no-referrer, Chromium's Origin is "null").
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  const origin = req.get("origin");
  return origin !== undefined && origin !== `${req.protocol}://${req.get("host") ?? ""}`;
}

/** Whether a posted form carries the session's CSRF token. */
export const carriesCsrf = (req: Request, session: OpenSession): boolean => {
  const posted: unknown = (req.body as Record<string, unknown> | undefined)?.csrf;
  return typeof posted === "string" && sameSecret(posted, session.csrf);
};

/**
 * Opens a session for `label`: a random id in an HttpOnly, SameSite=Strict cookie on /console (Secure over https),
 * stored only as its hash with its expiry.
 */
export async function openSession(
  req: Request,
  res: Response,
  deps: ConsoleDeps,
  settings: ConsoleSettings,
  label: string,
): Promise<void> {
  const id = newConsoleSecret();
  const expiresAt = new Date(deps.views.clock().getTime() + settings.sessionTtlSeconds * 1000);
  await deps.sessions.openSession({ idHash: hashConsoleSecret(id), label, expiresAt });
  const secure = req.secure ? "; Secure" : "";
  res.append(
    "Set-Cookie",
    `${SESSION_COOKIE}=${id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${settings.sessionTtlSeconds}${secure}`,
  );
}

/** Clears the session cookie. */
export const clearSessionCookie = (res: Response): void => {
  res.append("Set-Cookie", `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`);
};

/**
 * Who a login form's credential names: the session label of a one-time link (used up here), or of CONSOLE_TOKEN;
 * undefined if neither is given or right.
 */
export async function loginLabel(
  form: Record<string, unknown>,
  deps: ConsoleDeps,
  settings: ConsoleSettings,
): Promise<string | undefined> {
  if (typeof form.link === "string" && form.link.length > 0 && form.link.length <= 200) {
    return deps.sessions.useLink(hashConsoleSecret(form.link), deps.views.clock());
  }
  if (typeof form.token === "string" && settings.token !== undefined && sameSecret(form.token, settings.token)) {
    return tokenSessionLabel(settings.token);
  }
  return undefined;
}
