import { expect } from "chai";
import { ERROR_CODES, OAUTH_ERRORS } from "../../../gateway/errors/errorCodes";
import { documentedCodes } from "../../../gateway/openapi/problem.schema";
import { buildOpenApiRegistry } from "../../../gateway/routes/document";

/** Each listed code's status (null: never an answer's code). */
const STATUS = new Map<string, number | null>(ERROR_CODES.map((entry) => [entry.code, entry.status]));
/** The routes whose problems carry an RFC 6749 `error` (their code is its upper case). */
const OAUTH_ROUTES = ["POST /v1/auth"];

/** Whether an answer's content is a problem. */
const isProblem = (content: object | undefined): boolean =>
  content !== undefined && "application/problem+json" in content;

/**
 * Every problem answer of the reference (an error answer in `application/problem+json`; GET /health's 503 is its
 * JSON report): its operation, its status and the answer as registered.
 */
function errorAnswers(): { operation: string; status: number; answer: object }[] {
  return buildOpenApiRegistry().definitions.flatMap((definition) => {
    if (definition.type !== "route") return [];
    const { method, path, responses } = definition.route;
    return Object.entries(responses)
      .filter(([status, answer]) => Number(status) >= 400 && "content" in answer && isProblem(answer.content))
      .map(([status, answer]) => ({ operation: `${method.toUpperCase()} ${path}`, status: Number(status), answer }));
  });
}

describe("API reference: each error answer's codes come from the error-code module", () => {
  it("every error answer is a problem naming its codes as typed interpolations (problemResponse)", () => {
    const answers = errorAnswers();
    expect(answers.length, "error answers in the reference").to.be.greaterThan(60);
    for (const { operation, status, answer } of answers) {
      expect(documentedCodes(answer) ?? [], `${operation} ${status}: made by problemResponse`).to.not.be.empty;
    }
  });

  it("a code is documented under the status the module gives it, and never as a failed request's code", () => {
    for (const { operation, status, answer } of errorAnswers()) {
      for (const code of documentedCodes(answer) ?? []) {
        const oauth = (OAUTH_ERRORS as readonly string[]).includes(code);
        if (oauth) expect(OAUTH_ROUTES, `${operation} ${status}: ${code}, an RFC 6749 error`).to.include(operation);
        const listed = STATUS.get(oauth ? code.toUpperCase() : code);
        if (oauth && listed === undefined) continue;
        expect(listed, `${operation} ${status}: ${code}'s status`).to.equal(status);
      }
    }
  });

  it("no listed code is written as plain text beside them, where a misspelling would pass", () => {
    for (const { operation, status, answer } of errorAnswers()) {
      const { description } = answer as { description: string };
      const named = [...description.matchAll(/\b[A-Z][A-Z0-9_]+\b/g)].map((m) => m[0]).filter((w) => STATUS.has(w));
      expect(documentedCodes(answer) ?? [], `${operation} ${status}: ${description}`).to.include.members(named);
    }
  });
});
