import type { ZodError } from "zod";
import type { FieldProblem } from "./apiError";

/** A JSON pointer to a field, its tokens escaped (RFC 6901). */
const pointerOf = (path: readonly PropertyKey[]): string =>
  `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/**
 * Field problems of a zod validation error, with JSON-pointer paths. A strict object's unknown keys are one problem
 * each, pointing at the key, rather than one pointing at the object.
 */
export const zodProblems = (error: ZodError): FieldProblem[] =>
  error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ pointer: pointerOf([...issue.path, key]), detail: "Unknown field" }))
      : [{ pointer: pointerOf(issue.path), detail: issue.message }],
  );
