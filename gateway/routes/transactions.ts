import express, { type Response, Router } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import type { RequestDeadline } from "../accept/requestDeadline";
import type { WalletTxRecord } from "../transactions/txRecord";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { closedSignal } from "../http/closedSignal";
import { deadlineOf } from "../http/requestTimeout";
import type { AccountType } from "../identity/walletAddress";
import { waitForFinal } from "../accept/requestAcceptance";
import { type TransactionsDeps, findTransaction, submitTransaction } from "../accept/transactions";
import { transactionView } from "../transactions/txViews";
import { BaseTxRequestBody, IdempotencyKey, KernelTxRequestBody, TxStatusQuery } from "./transactions.schema";

/** Where each account type's requests are posted; a request's status is at `<path>/<id>`. */
export const TX_PATH = { kernel: "/v1/kernel/tx", base: "/v1/base/tx" } as const;

/** RFC 9745 / RFC 8594: the base account endpoints are deprecated in favour of the Kernel ones. */
const DEPRECATION = {
  Deprecation: "@1704067200",
  Link: '</v1/kernel/tx>; rel="successor-version", </docs>; rel="deprecation"',
};

/** The body schema of a request of each account type. */
export const TX_REQUEST_BODY = { kernel: KernelTxRequestBody, base: BaseTxRequestBody } as const;

/**
 * A POST of a transaction request of `type`, as its route reads it: the body and the Idempotency-Key header
 * validated, then submitted (submitTransaction). Shared with the node:http fast path (http/transactionsFastPath.ts).
 */
export function acceptTxRequest(
  type: AccountType,
  rawBody: unknown,
  idempotencyKey: string | undefined,
  principal: AppPrincipal,
  deps: TransactionsDeps,
  deadline: RequestDeadline,
): Promise<{ record: WalletTxRecord; created: boolean }> {
  const body = TX_REQUEST_BODY[type].parse(rawBody);
  const key = IdempotencyKey.parse(idempotencyKey);
  const delegatecall = "delegatecall" in body ? (body.delegatecall as 0 | 1) : 0;
  return submitTransaction(type, { ...body, delegatecall }, key, principal, deps, deadline);
}

/**
 * A GET of a request's status, as its route reads it: the query validated, the app's request of `type` found, and
 * with `wait=true` followed until final, `waitTimeoutMs` passes or `signal` aborts. Shared with the fast path.
 */
export async function txRequestStatus(
  type: AccountType,
  id: string,
  rawQuery: unknown,
  principal: AppPrincipal,
  deps: { readonly repository: TransactionsDeps["repository"]; readonly waitTimeoutMs: number },
  signal: () => AbortSignal,
): Promise<WalletTxRecord> {
  const query = TxStatusQuery.parse(rawQuery);
  const record = await findTransaction(type, id, principal, deps.repository);
  if (query.wait !== "true") return record;
  return waitForFinal(record, deps.repository, { timeoutMs: deps.waitTimeoutMs, signal: signal() });
}

/**
 * POST /v1/kernel/tx (spec §4.3), GET /v1/kernel/tx/{id}, and the deprecated POST /v1/base/tx (spec §4.9) with
 * GET /v1/base/tx/{id}: bearer token and user proof; the request is committed before the answer, or, past its
 * deadline, never.
 */
export function transactionsRouter(deps: {
  tokens: AppTokens;
  admitApp: AdmitApp;
  bodyLimit: string;
  waitTimeoutMs: number;
  transactions: TransactionsDeps;
}): Router {
  const router = Router();
  const auth = bearerAuth(deps.tokens, true, deps.admitApp);
  const json = express.json({ limit: deps.bodyLimit });
  const principal = (res: Response) => principalOf(res) as AppPrincipal;

  const routes: { type: AccountType; path: string }[] = [
    { type: "kernel", path: TX_PATH.kernel },
    { type: "base", path: TX_PATH.base },
  ];
  for (const { type, path } of routes) {
    const deprecated = type === "base";
    router.post(path, auth, json, async (req, res) => {
      if (deprecated) res.set(DEPRECATION);
      const { record, created } = await acceptTxRequest(
        type,
        req.body,
        req.get("idempotency-key"),
        principal(res),
        deps.transactions,
        deadlineOf(res),
      );
      if (!created) res.set("Idempotent-Replayed", "true");
      // Spec §4.9 answers the deprecated endpoint with 200; the Kernel one is asynchronous, 202 Accepted.
      res
        .status(deprecated ? 200 : 202)
        .location(`${path}/${record.id}`)
        .json(transactionView(record));
    });
    router.get(`${path}/:id`, auth, async (req, res) => {
      if (deprecated) res.set(DEPRECATION);
      const wait = { repository: deps.transactions.repository, waitTimeoutMs: deps.waitTimeoutMs };
      const record = await txRequestStatus(type, String(req.params.id), req.query, principal(res), wait, () =>
        closedSignal(res),
      );
      res.json(transactionView(record));
    });
  }
  return router;
}
