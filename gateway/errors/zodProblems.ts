import type { ZodError } from "zod";
import type { FieldProblem } from "./apiError";

/** Field problems of a zod validation error, with JSON-pointer paths. */
export const zodProblems = (error: ZodError): FieldProblem[] =>
  error.issues.map((issue) => ({
    pointer: `/${issue.path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`,
    detail: issue.message,
  }));
