import { expect } from "chai";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ERROR_CODES } from "../../../gateway/errors/errorCodes";

/**
 * The Errors table of docs/api.md as code → status (null for "—"). A row lists codes in groups split by " / " and their
 * statuses the same way ("`A`, `B` / `C` | 401 / 403": A and B 401, C 403); one status serves every group.
 */
function readmeErrorTable(): Map<string, number | null> {
  const readme = readFileSync(path.join(__dirname, "..", "..", "..", "docs", "api.md"), "utf8");
  const start = readme.indexOf("\n| Code");
  expect(start, "docs/api.md has an Errors table").to.be.greaterThan(0);
  const table = readme.slice(start + 1);
  const rows = table
    .slice(0, table.search(/\n\s*\n/))
    .split("\n")
    .slice(2);
  const statuses = new Map<string, number | null>();
  for (const row of rows) {
    const [codesCell, statusCell] = row
      .split("|")
      .slice(1, 3)
      .map((cell) => cell.trim());
    const groups = codesCell!
      .split(" / ")
      .map((group) => [...group.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    const groupStatuses = statusCell!.split(" / ").map((s) => (s === "—" ? null : Number(s)));
    expect(groupStatuses.length === 1 || groupStatuses.length === groups.length, `statuses of: ${row}`).to.be.true;
    groups.forEach((codes, i) => {
      const status = groupStatuses[groupStatuses.length === 1 ? 0 : i]!;
      expect(Number.isNaN(status), `status of: ${row}`).to.be.false;
      for (const code of codes) {
        expect(statuses.has(code), `${code} listed twice`).to.be.false;
        statuses.set(code, status);
      }
    });
  }
  return statuses;
}

describe("error codes: one module, the Errors table of docs/api.md its human copy", () => {
  it("lists each code once, each with its status and when it is answered", () => {
    const codes = ERROR_CODES.map((entry) => entry.code);
    expect(new Set(codes).size).to.equal(codes.length);
    for (const entry of ERROR_CODES) {
      expect(entry.code, entry.code).to.match(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.status === null || (entry.status >= 400 && entry.status < 600), entry.code).to.be.true;
      expect(entry.when, entry.code).to.not.equal("");
    }
  });

  it("the Errors table of docs/api.md lists exactly the module's codes, with the same statuses", () => {
    const readme = readmeErrorTable();
    expect(readme.size, "codes read from docs/api.md").to.be.greaterThan(40);
    const module = new Map(ERROR_CODES.map((entry) => [entry.code as string, entry.status as number | null]));
    const sorted = (map: Map<string, number | null>) => [...map].sort(([a], [b]) => a.localeCompare(b));
    expect(sorted(readme)).to.deep.equal(sorted(module));
  });
});
