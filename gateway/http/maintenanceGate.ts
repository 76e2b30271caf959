import type { RequestHandler } from "express";
import { MaintenanceError } from "../errors/apiError";
import type { MaintenanceMonitor } from "../config/maintenanceMonitor";

/** Answers 503 + Retry-After while maintenance is on; placed in front of the API routes only. */
export function maintenanceGate(monitor: MaintenanceMonitor, retryAfterSeconds: number): RequestHandler {
  return (_req, _res, next) => {
    const state = monitor.current();
    next(state.enabled ? new MaintenanceError(retryAfterSeconds, state.message) : undefined);
  };
}
