import type { RequestHandler } from "express";
import { ApiError } from "../errors/apiError";

/** Answers 503 REQUEST_TIMEOUT if a handler has not answered within `ms` (invariant 5: never hang). */
export function requestTimeout(ms: number): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent)
        next(new ApiError(503, "REQUEST_TIMEOUT", "Request timed out", `No answer within ${ms} ms`));
    }, ms);
    timer.unref();
    res.on("close", () => clearTimeout(timer));
    next();
  };
}
