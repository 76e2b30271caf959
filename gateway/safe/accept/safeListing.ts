import type { AppPrincipal } from "../../auth/appTokens";
import { InvalidRequestError } from "../../errors/apiError";
import type { SafeRecord, SafesCursor } from "../model/safeRecord";
import { type SafeTxRecord, isSafeRecord } from "../../transactions/txRecord";
import { safeChain } from "../../accept/chainChecks";
import { actingApp } from "../../auth/requestChecks";
import type { SafesDeps } from "./safes";

/** A page of the app's Safes on a chain, oldest first, with the cursor of the next page. */
export async function listSafes(
  chain: string,
  page: { limit: number; cursor?: string | undefined },
  principal: AppPrincipal,
  deps: SafesDeps,
): Promise<{
  safes: readonly SafeRecord[];
  deployments: ReadonlyMap<string, SafeTxRecord>;
  nextCursor: string | null;
}> {
  safeChain(chain, deps.capabilities);
  const app = await actingApp(principal, deps.findApp);
  const rows = await deps.safes.list(app.id, chain, page.limit + 1, page.cursor ? parseCursor(page.cursor) : undefined);
  const safes = rows.slice(0, page.limit);
  const last = safes.at(-1);
  const deployments = new Map<string, SafeTxRecord>();
  for (const safe of safes) {
    const record = await deps.transactions.find(safe.deploymentTxId);
    if (record && isSafeRecord(record)) deployments.set(safe.deploymentTxId, record);
  }
  return {
    safes,
    deployments,
    nextCursor:
      rows.length > page.limit && last ? encodeCursor({ createdAt: last.createdAt, address: last.address }) : null,
  };
}

const encodeCursor = (cursor: SafesCursor): string => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function parseCursor(cursor: string): SafesCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<SafesCursor>;
    if (typeof value.createdAt === "string" && typeof value.address === "string") {
      return { createdAt: value.createdAt, address: value.address };
    }
  } catch {
    // falls through to the 400
  }
  throw new InvalidRequestError(
    "cursor is not one this endpoint gave out",
    [{ pointer: "/cursor", detail: "invalid" }],
    "INVALID_CURSOR",
  );
}
