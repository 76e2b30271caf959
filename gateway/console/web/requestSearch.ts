import { z } from "zod";
import type { RequestFilter } from "../consoleReads";
import type { ConsoleViewDeps } from "../service/consoleDeps";

/** A status to filter requests by; empty: any. */
export const TxStatusFilter = z.union([z.literal(""), z.enum(["queued", "submitted", "included", "failed"])]);

/**
 * The filter a search box means: its text is a request id when one has it, else a user id; with the status chosen.
 * A request's id is looked up first, so pasting one finds it whichever app it is of.
 */
export async function searchFor(
  deps: Pick<ConsoleViewDeps, "reads">,
  search: { readonly q?: string; readonly status?: z.infer<typeof TxStatusFilter> },
): Promise<Omit<RequestFilter, "appId">> {
  const status = search.status || undefined;
  const base = { limit: 50, ...(status ? { status } : {}) };
  if (!search.q) return base;
  const byId = await deps.reads.requests({ id: search.q, limit: 1 });
  return byId.length > 0 ? { ...base, id: search.q } : { ...base, userId: search.q };
}
