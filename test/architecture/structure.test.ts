import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const GATEWAY = path.join(ROOT, "gateway");
const MAX_LINES = 300;

/** Every TypeScript file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/g;

/** The gateway files a file imports (relative imports; type-only ones too: a circle of types is a circle of rooms). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const base = path.resolve(path.dirname(file), match[1]!);
    const target = [`${base}.ts`, path.join(base, "index.ts")].find((candidate) => known.has(candidate));
    if (target) found.push(target);
  }
  return found;
}

/** One import circle, as the files around it, if there is any. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const circle = visit(next);
        if (circle) return circle;
      }
    }
    stack.pop();
    state.set(file, "done");
    return undefined;
  };
  for (const file of graph.keys()) {
    if (state.get(file) !== undefined) continue;
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe("the gateway's structure", () => {
  const files = sourceFiles(GATEWAY);
  const known = new Set(files);
  const relative = (file: string) => path.relative(ROOT, file);

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).to.deep.equal([]);
  });

  it("has no import circle", () => {
    const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
    const circle = findCircle(graph)?.map(relative);
    expect(circle, circle?.join(" → ")).to.equal(undefined);
  });
});
