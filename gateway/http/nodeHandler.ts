import type { IncomingMessage, ServerResponse } from "node:http";

/** A plain node:http request handler: the express app, and the fast paths served in front of it. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** `first` for the requests whose URL starts with `prefix`, `next` for the others (`next` alone without a `first`). */
export const byPrefix = (prefix: string, first: NodeHandler | undefined, next: NodeHandler): NodeHandler =>
  first ? (req, res) => (req.url?.startsWith(prefix) ? first(req, res) : next(req, res)) : next;
