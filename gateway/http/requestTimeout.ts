import type { RequestHandler } from "express";
import { ApiError } from "../errors/apiError";

/**
 * Answers if a handler has not answered within `ms` (invariant 5: never hang): 408 INCOMPLETE_BODY when the client
 * has not sent all of the body it announced (its fault), else 503 REQUEST_TIMEOUT (ours).
 */
export function requestTimeout(ms: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      if (!req.complete) {
        next(new ApiError(408, "INCOMPLETE_BODY", "Request timeout", `The body did not arrive within ${ms} ms`));
        return;
      }
      next(new ApiError(503, "REQUEST_TIMEOUT", "Request timed out", `No answer within ${ms} ms`));
    }, ms);
    timer.unref();
    res.on("close", () => clearTimeout(timer));
    next();
  };
}
