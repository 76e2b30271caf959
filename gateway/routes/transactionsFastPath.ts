import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import type { AppPrincipal } from "../auth/appTokens";
import { PayloadTooLargeError } from "../errors/apiError";
import { TX_PATH, acceptTxRequest, txRequestStatus } from "./transactions";
import type { MaintenanceMonitor } from "../config/maintenanceMonitor";
import type { TransactionsDeps } from "../accept/transactions";
import { transactionView } from "../transactions/txViews";
import { closedSignal } from "../http/closedSignal";
import { bodyLimitBytes, parseJson, plainBody, readBody } from "../http/fastBody";
import { type FastExchange, type FastPathDeps, authenticateFast, startExchange } from "../http/fastExchange";
import { sendJson } from "../http/jsonResponse";
import type { NodeHandler } from "../http/nodeHandler";

/** What the fast path needs: the transactions routes' parts and the app's own (headers, metrics, logger, gate). */
export interface TransactionsFastPathDeps extends FastPathDeps {
  readonly transactions: TransactionsDeps;
  readonly waitTimeoutMs: number;
  readonly maintenance: MaintenanceMonitor;
}

const PATH = TX_PATH.kernel;
const STATUS_ROUTE = `${PATH}/:id`;
// express.json's media type, in UTF-8 (it reads other charsets too; those requests go to the express route).
const FAST_CONTENT_TYPE = /^application\/json(?:; ?charset=utf-8)?$/i;
// A request id as the route reads it, spelled so that decoding the path changes nothing (others go to express).
const STATUS_PATH = /^\/v1\/kernel\/tx\/([0-9A-Za-z-]{1,64})$/;

/**
 * POST /v1/kernel/tx and GET /v1/kernel/tx/{id} over plain node:http in front of `app`, as the express routes
 * (routes/transactions.ts, whose handlers they share) answer them: the same headers, bearer rules, body limit,
 * deadline (nothing committed past it), problems, metrics and access line, without express's middleware and router,
 * which cost as much as the rest of accepting a request. A request it does not take — another route or method, a path
 * spelled otherwise, a Content-Encoding, a chunked body, another media type or charset, a conditional GET,
 * maintenance — goes to `app` unchanged.
 */
export function createTransactionsFastPath(deps: TransactionsFastPathDeps, app: NodeHandler): NodeHandler {
  const limit = bodyLimitBytes(deps.bodyLimit);
  const open = () => !deps.maintenance.current().enabled;
  const takesPost = (req: IncomingMessage): boolean =>
    plainBody(req) && FAST_CONTENT_TYPE.test(req.headers["content-type"] ?? "") && open();
  // express answers a GET whose validators match with 304: those go to it.
  const takesGet = (req: IncomingMessage): boolean =>
    req.headers["if-none-match"] === undefined && req.headers["if-modified-since"] === undefined && open();
  return (req, res) => {
    const url = req.url ?? "";
    if (req.method === "POST" && url === PATH && takesPost(req)) return accept(req, res);
    if (req.method === "GET" && url.startsWith(PATH)) {
      const query = url.indexOf("?");
      const id = STATUS_PATH.exec(query < 0 ? url : url.slice(0, query))?.[1];
      if (id !== undefined && takesGet(req)) return status(req, res, id, query < 0 ? "" : url.slice(query + 1));
    }
    app(req, res);
  };

  function accept(req: IncomingMessage, res: ServerResponse): void {
    const exchange = startExchange(deps, req, res, PATH, PATH);
    authenticateFast(deps, exchange, true, (principal) =>
      readBody(req, limit, (over, body) =>
        over
          ? exchange.fail(new PayloadTooLargeError(deps.bodyLimit))
          : void submit(exchange, principal!, body).catch(exchange.fail),
      ),
    );
  }

  async function submit(exchange: FastExchange, principal: AppPrincipal, bytes: Buffer): Promise<void> {
    const { req, res, deadline } = exchange;
    // Answered already (the deadline passed while the body was coming).
    if (res.headersSent) return;
    const key = req.headers["idempotency-key"];
    const { record, created } = await acceptTxRequest(
      "kernel",
      parseJson(bytes),
      Array.isArray(key) ? key.join(", ") : key,
      principal,
      deps.transactions,
      deadline,
    );
    if (!created) res.setHeader("Idempotent-Replayed", "true");
    res.setHeader("Location", `${PATH}/${record.id}`);
    sendJson(res, 202, JSON.stringify(transactionView(record)));
  }

  function status(req: IncomingMessage, res: ServerResponse, id: string, query: string): void {
    const exchange = startExchange(deps, req, res, STATUS_ROUTE, `${PATH}/${id}`);
    authenticateFast(deps, exchange, true, (principal) => {
      const wait = { repository: deps.transactions.repository, waitTimeoutMs: deps.waitTimeoutMs };
      txRequestStatus("kernel", id, parseQuery(query), principal!, wait, () => closedSignal(res))
        .then((record) => sendJson(res, 200, JSON.stringify(transactionView(record))))
        .catch(exchange.fail);
    });
  }
}
