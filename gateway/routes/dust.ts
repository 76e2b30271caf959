import { type Request, type Response, Router } from "express";
import { type DustDeps, type Page, allOrders, openOrders, walletInformation } from "../dust/accept/dustService";
import { DustAddressParams, DustPageQuery, DustWalletQuery } from "./dust.schema";

/** RFC 8288 link to the next page when this one is full (the body stays the spec's plain array). */
function linkNext(req: Request, res: Response, page: Page, count: number): void {
  if (count < page.limit) return;
  res.set("Link", `<${req.baseUrl}${req.path}?limit=${page.limit}&offset=${page.offset + page.limit}>; rel="next"`);
}

/**
 * The dust-order read interface (spec §4.11, work in progress there): GET /api/all-orders, /api/orders and
 * /api/{address}. No authentication, as the spec shows none: everything here is public chain data or orders.
 */
export function dustRouter(deps: { dust: DustDeps }): Router {
  const router = Router();
  // The fixed paths first: "all-orders" and "orders" are not addresses.
  router.get("/api/all-orders", async (req, res) => {
    const page = DustPageQuery.parse(req.query);
    const orders = await allOrders(page, deps.dust);
    linkNext(req, res, page, orders.length);
    res.json(orders);
  });
  router.get("/api/orders", async (req, res) => {
    const page = DustPageQuery.parse(req.query);
    const orders = await openOrders(page, deps.dust);
    linkNext(req, res, page, orders.length);
    res.json(orders);
  });
  router.get("/api/:address", async (req, res) => {
    const { address } = DustAddressParams.parse(req.params);
    const { chain } = DustWalletQuery.parse(req.query);
    res.json(await walletInformation(address, chain, req.ip, deps.dust));
  });
  return router;
}
