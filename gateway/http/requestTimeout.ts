import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { ApiError, RequestTimeoutError } from "../errors/apiError";
import { RequestDeadline } from "../accept/requestDeadline";

const noop = () => undefined;

/** The deadline of a request (set by {@link requestTimeout}), to hand to the services that commit its effect. */
export function deadlineOf(res: Response): RequestDeadline {
  const deadline: unknown = res.locals.deadline;
  if (!(deadline instanceof RequestDeadline)) throw new Error("requestTimeout must run before a route that commits");
  return deadline;
}

/** What a request unanswered after `ms` is answered: 408 if its body has not all arrived (the client's fault), else 503. */
export const timeoutError = (req: IncomingMessage, ms: number): ApiError =>
  req.complete
    ? new RequestTimeoutError(ms)
    : new ApiError(408, "INCOMPLETE_BODY", "Request timeout", `The body did not arrive within ${ms} ms`);

/**
 * The deadline of a request, whatever serves it (invariant 5: never hang): if nothing has answered within `ms`,
 * `answer` is given 408 INCOMPLETE_BODY when the client has not sent all of the body it announced (its fault), else
 * 503 REQUEST_TIMEOUT (ours). Either way the deadline expires with the answer, so the request never commits later. A
 * request that committed in time is not answered here: its handler answers, as its effect is real.
 */
export function startDeadline(
  req: IncomingMessage,
  res: ServerResponse,
  ms: number,
  answer: (error: ApiError) => void,
): RequestDeadline {
  const deadline = new RequestDeadline(ms);
  const timer = setTimeout(() => {
    if (res.headersSent || !deadline.expire()) return;
    answer(timeoutError(req, ms));
  }, ms);
  timer.unref();
  res.on("close", () => clearTimeout(timer));
  return deadline;
}

/**
 * The express app's request deadline (startDeadline), kept for deadlineOf. `answer` is the app's problem handler; it
 * is called directly, not through `next`, so the handler, still running, keeps its own way to the problem handler for
 * what it throws later (the refused commit), instead of ending in express's default handler.
 */
export function requestTimeout(ms: number, answer: ErrorRequestHandler): RequestHandler {
  return (req, res, next) => {
    res.locals.deadline = startDeadline(req, res, ms, (error) => answer(error, req, res, noop));
    next();
  };
}
