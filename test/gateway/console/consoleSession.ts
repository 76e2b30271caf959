import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { buildTestApp } from "../../helpers/testApp";
import { onPostgres, serviceDatabase } from "../../helpers/testDatabase";

/** CONSOLE_TOKEN of the console tests. */
export const CONSOLE_TOKEN = "console-token-of-the-operator-0123456789";

type Built = ReturnType<typeof buildTestApp>;

/** The CSRF token a console page's forms carry. */
export const csrfIn = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";

/** Logs in with `form` (the token or a link's secret): the session cookie and its CSRF token, or the refusal. */
export async function logIn(built: Built, form: Record<string, string> = { token: CONSOLE_TOKEN }) {
  const res = await request(built.app).post("/console/login").type("form").send(form);
  const cookie = (res.headers["set-cookie"] as unknown as string[] | undefined)?.[0]?.split(";")[0] ?? "";
  const page = cookie ? await request(built.app).get("/console").set("Cookie", cookie) : undefined;
  return { res, cookie, csrf: page ? csrfIn(page.text) : "" };
}

/** Posts a console action as a same-origin form of the session (confirmed unless told otherwise). */
export const postAction = (
  built: Built,
  session: { cookie: string; csrf: string },
  action: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  request(built.app)
    .post(`/console/actions/${action}`)
    .set({ Cookie: session.cookie, ...headers })
    .type("form")
    .send({ csrf: session.csrf, confirm: "yes", ...fields });

/**
 * The test app with `overrides`, on a fresh database of this run's kind: SQLite in memory, or (TEST_DATABASE=postgres)
 * a PostgreSQL database of its own, so the console's SQL runs on both.
 */
export async function consoleTestApp(overrides: Record<string, unknown> = {}): Promise<Built> {
  if (!onPostgres()) return buildTestApp(overrides);
  const databasePath = await serviceDatabase(mkdtempSync(path.join(tmpdir(), "idwallet-console-")));
  return buildTestApp(overrides, { databasePath });
}
