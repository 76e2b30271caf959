import { type Response, Router } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { jsonBody } from "../http/jsonBody";
import { closedSignal } from "../http/closedSignal";
import { deadlineOf } from "../http/requestTimeout";
import type { SafeActionRequest } from "../safe/accept/safeActions";
import { listSafes } from "../safe/accept/safeListing";
import { listSafeTransactions } from "../safe/accept/safeTxListing";
import { type SafesDeps, createSafe, findSafeTransaction, submitSafeTransaction } from "../safe/accept/safes";
import { safeView } from "../safe/accept/safeViews";
import { safeTransactionView } from "../transactions/txViews";
import { waitForFinal } from "../accept/requestAcceptance";
import {
  CreateSafeBody,
  CustomSafeTxBody,
  DisperseBody,
  DisperseNftBody,
  ListSafesBody,
  SafePathParams,
  SafeTxListQuery,
  TransferBody,
} from "./safes.schema";
import { IdempotencyKey, TxStatusQuery } from "./transactions.schema";
import { z } from "zod";

/** The Safe transaction routes: path under /v1/{chain}/account/{address} and how its body becomes a request. */
const ACTIONS: { path: string; parse: (body: unknown) => SafeActionRequest }[] = [
  {
    path: "custom",
    parse: (body) => {
      const { value, ...call } = CustomSafeTxBody.parse(body);
      return { action: "custom", ...call, value: value ?? 0n };
    },
  },
  { path: "payout/transfer", parse: (body) => ({ action: "transfer", token: undefined, ...TransferBody.parse(body) }) },
  {
    path: "payout/disperse",
    parse: (body) => ({
      action: "disperse",
      transfers: DisperseBody.parse(body).transfers.map((t) => ({ token: undefined, ...t })),
    }),
  },
  { path: "payout/disperseNFT", parse: (body) => ({ action: "disperseNFT", ...DisperseNftBody.parse(body) }) },
];

/**
 * The Safe-account interface (spec §4.10) under /v1/{chain}: create a 1-of-n Safe, list this app's Safes, send
 * custom calls and payouts from one of them, follow each request by its txUuid, and list a Safe's requests. Bearer
 * token required; an app acts only on Safes it created.
 */
export function safesRouter(deps: {
  tokens: AppTokens;
  admitApp: AdmitApp;
  bodyLimit: string;
  waitTimeoutMs: number;
  safes: SafesDeps;
}): Router {
  const router = Router();
  const auth = bearerAuth(deps.tokens, true, deps.admitApp);
  const json = jsonBody({ limit: deps.bodyLimit });
  const principal = (res: Response) => principalOf(res) as AppPrincipal;
  const chainOf = (params: unknown) => z.object({ chain: z.string().max(64) }).parse(params).chain;

  router.post("/v1/:chain/account", auth, ...json, async (req, res) => {
    const chain = chainOf(req.params);
    const body = CreateSafeBody.parse(req.body);
    const key = IdempotencyKey.parse(req.get("idempotency-key"));
    const { safe, record, created } = await createSafe(chain, body, key, principal(res), deps.safes, deadlineOf(res));
    if (!created) res.set("Idempotent-Replayed", "true");
    res
      .status(202)
      .location(`/v1/${chain}/account/${safe.address}/tx/${record.id}`)
      .json({ ...safeView(safe, record), txUuid: record.id, status: record.status });
  });

  router.post("/v1/:chain/accounts", auth, ...json, async (req, res) => {
    const chain = chainOf(req.params);
    const body = ListSafesBody.parse(req.body ?? {});
    const page = await listSafes(chain, body, principal(res), deps.safes);
    res.json({
      accounts: page.safes.map((safe) => safeView(safe, page.deployments.get(safe.deploymentTxId))),
      nextCursor: page.nextCursor,
    });
  });

  for (const { path, parse } of ACTIONS) {
    router.post(`/v1/:chain/account/:address/${path}`, auth, ...json, async (req, res) => {
      const { chain, address } = SafePathParams.parse(req.params);
      const request = parse(req.body);
      const key = IdempotencyKey.parse(req.get("idempotency-key"));
      const { record, created } = await submitSafeTransaction(
        chain,
        address,
        request,
        key,
        principal(res),
        deps.safes,
        deadlineOf(res),
      );
      if (!created) res.set("Idempotent-Replayed", "true");
      res.status(202).location(`/v1/${chain}/account/${address}/tx/${record.id}`).json(safeTransactionView(record));
    });
  }

  router.get("/v1/:chain/account/:address/tx/:txUuid", auth, async (req, res) => {
    const { chain, address } = SafePathParams.parse(req.params);
    const query = TxStatusQuery.parse(req.query);
    let record = await findSafeTransaction(chain, address, String(req.params.txUuid), principal(res), deps.safes);
    if (query.wait === "true") {
      const wait = { timeoutMs: deps.waitTimeoutMs, signal: closedSignal(res) };
      record = await waitForFinal(record, deps.safes.transactions, wait);
    }
    res.json(safeTransactionView(record));
  });

  router.get("/v1/:chain/account/:address/txs", auth, async (req, res) => {
    const { chain, address } = SafePathParams.parse(req.params);
    const query = SafeTxListQuery.parse(req.query);
    const page = await listSafeTransactions(chain, address, query, principal(res), deps.safes);
    res.json({ items: page.records.map(safeTransactionView), nextCursor: page.nextCursor });
  });
  return router;
}
