/** Kysely table interfaces of the operator console's tables (migration 024), as `schema.ts` keeps the others. */
import type { Generated } from "kysely";

/** `console_links`: a one-time console login link, by the SHA-256 of its secret (migration 024). */
export interface ConsoleLinksTable {
  token_hash: string;
  label: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** `console_sessions`: an open console session, by the SHA-256 of its cookie's id (migration 024). */
export interface ConsoleSessionsTable {
  id_hash: string;
  label: string;
  created_at: string;
  expires_at: string;
}

/** `console_actions`: one operator action, from the console or the CLI (migration 024). */
export interface ConsoleActionsTable {
  seq: Generated<number>;
  at: string;
  who: string;
  action: string;
  target: string;
  detail: string | null;
  result: string;
}

/** The console's tables, by name, as `DatabaseSchema` names every table. */
export interface ConsoleTables {
  console_links: ConsoleLinksTable;
  console_sessions: ConsoleSessionsTable;
  console_actions: ConsoleActionsTable;
}
