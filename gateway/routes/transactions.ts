import express, { type Response, Router } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { closedSignal } from "../http/closedSignal";
import { deadlineOf } from "../http/requestTimeout";
import type { AccountType } from "../identity/walletAddress";
import { waitForFinal } from "../services/requestAcceptance";
import { type TransactionsDeps, findTransaction, submitTransaction } from "../services/transactions";
import { transactionView } from "../transactions/txViews";
import { BaseTxRequestBody, IdempotencyKey, KernelTxRequestBody, TxStatusQuery } from "./transactions.schema";

/** RFC 9745 / RFC 8594: the base account endpoints are deprecated in favour of the Kernel ones. */
const DEPRECATION = {
  Deprecation: "@1704067200",
  Link: '</v1/kernel/tx>; rel="successor-version", </docs>; rel="deprecation"',
};

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

  const routes: { type: AccountType; path: string; schema: typeof KernelTxRequestBody | typeof BaseTxRequestBody }[] = [
    { type: "kernel", path: "/v1/kernel/tx", schema: KernelTxRequestBody },
    { type: "base", path: "/v1/base/tx", schema: BaseTxRequestBody },
  ];
  for (const { type, path, schema } of routes) {
    const deprecated = type === "base";
    router.post(path, auth, json, async (req, res) => {
      if (deprecated) res.set(DEPRECATION);
      const body = schema.parse(req.body);
      const key = IdempotencyKey.parse(req.get("idempotency-key"));
      const { record, created } = await submitTransaction(
        type,
        { ...body, delegatecall: "delegatecall" in body ? (body.delegatecall as 0 | 1) : 0 },
        key,
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
      const query = TxStatusQuery.parse(req.query);
      let record = await findTransaction(type, String(req.params.id), principal(res), deps.transactions.repository);
      if (query.wait === "true") {
        const wait = { timeoutMs: deps.waitTimeoutMs, signal: closedSignal(res) };
        record = await waitForFinal(record, deps.transactions.repository, wait);
      }
      res.json(transactionView(record));
    });
  }
  return router;
}
