import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ALLOWED_UPWARD, LAYERS, MAY_IMPORT, layerOf, roomOf } from "./layers";

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
/** The other ways a file loads another: `import "./x"`, `import("./x")`, `require("./x")`, `import x = require(…)`. */
const OTHER_IMPORT = /(?:(?:^|\n)\s*import\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)"(\.{1,2}\/[^"]+)"/g;

/** The gateway files a file imports (relative imports; type-only ones too: a circle of types is a circle of rooms). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of [...text.matchAll(IMPORT), ...text.matchAll(OTHER_IMPORT)]) {
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

const STORAGE = path.join(GATEWAY, "storage");
/** A type (or zod schema, which is one) a file declares: `export type|interface X`, `export const X = z…`. */
const DECLARED_TYPE = /^export\s+(?:type|interface)\s+(\w+)|^export\s+const\s+(\w+)\s*(?::[^=]+)?=\s*z\b/gm;
/** What storage may give the rest of the service: its repositories' contracts and its database handle. */
const STORAGE_CONTRACT = /(?:Repository|Repositories|Database)$/;
const NAMED_IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+"(\.{1,2}\/[^"]+)"/g;

/** The names `file` imports from files under `dir`. */
function namesImportedFrom(file: string, dir: string): string[] {
  const names: string[] = [];
  for (const match of readFileSync(file, "utf8").matchAll(NAMED_IMPORT)) {
    const target = path.resolve(path.dirname(file), match[2]!);
    if (!target.startsWith(`${dir}${path.sep}`)) continue;
    for (const part of match[1]!.split(",")) {
      const name = part
        .replace(/^\s*type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) names.push(name);
    }
  }
  return names;
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

  it("defines no domain type in storage: what storage exports to others is its repositories' contracts", () => {
    const storageTypes = new Map<string, string>();
    for (const file of files.filter((f) => f.startsWith(`${STORAGE}${path.sep}`))) {
      for (const match of readFileSync(file, "utf8").matchAll(DECLARED_TYPE)) {
        storageTypes.set((match[1] ?? match[2])!, relative(file));
      }
    }
    const users = [ROOT, "scripts", "bench", "test"].flatMap((dir) =>
      dir === ROOT ? files : sourceFiles(path.join(ROOT, dir)),
    );
    const leaks = users
      .filter((file) => !file.startsWith(`${STORAGE}${path.sep}`))
      .flatMap((file) =>
        namesImportedFrom(file, STORAGE)
          .filter((name) => storageTypes.has(name) && !STORAGE_CONTRACT.test(name))
          .map((name) => `${relative(file)} uses ${name} of ${storageTypes.get(name)}`),
      );
    expect(storageTypes.size, "the storage types were found").to.be.greaterThan(10);
    expect(leaks).to.deep.equal([]);
  });

  describe("the layers (test/architecture/layers.ts)", () => {
    const roomOfFile = (file: string) => roomOf(path.relative(GATEWAY, file).split(path.sep).join("/"));
    /** Every import from one room into another, as `from → to` with the files that make it. */
    const roomImports = new Map<string, string[]>();
    for (const file of files) {
      for (const target of importsOf(file, known)) {
        const [from, to] = [roomOfFile(file), roomOfFile(target)];
        if (from === to) continue;
        const key = `${from} → ${to}`;
        roomImports.set(key, [...(roomImports.get(key) ?? []), `${relative(file)} → ${relative(target)}`]);
      }
    }
    const allowed = new Set(ALLOWED_UPWARD.map(({ from, to }) => `${from} → ${to}`));

    it("places every room in one layer", () => {
      const rooms = new Set(files.map(roomOfFile));
      expect([...rooms].filter((room) => layerOf(room) === undefined)).to.deep.equal([]);
      const placed = Object.values(LAYERS).flat();
      expect(placed.length, "a room is placed twice").to.equal(new Set(placed).size);
    });

    it("has no import into a layer the importer may not use (domains never import adapters, HTTP or the app)", () => {
      const wrong = [...roomImports].flatMap(([key, made]) => {
        const [from, to] = key.split(" → ") as [string, string];
        const [above, below] = [layerOf(from)!, layerOf(to)!];
        if (above === below || MAY_IMPORT[above].includes(below) || allowed.has(key)) return [];
        return [`${key} (${above} may not import ${below}): ${made.join(", ")}`];
      });
      expect(wrong).to.deep.equal([]);
    });

    it("has no circle of rooms: within a layer too, every import runs one way", () => {
      const graph = new Map<string, string[]>();
      for (const key of roomImports.keys()) {
        if (allowed.has(key)) continue;
        const [from, to] = key.split(" → ") as [string, string];
        graph.set(from, [...(graph.get(from) ?? []), to]);
      }
      const circle = findCircle(graph);
      expect(
        circle,
        circle && circle.map((room, i) => roomImports.get(`${room} → ${circle[i + 1]}`)?.[0] ?? room).join(", "),
      ).to.equal(undefined);
    });

    it("names each import allowed to run back up, and each still exists", () => {
      expect(ALLOWED_UPWARD.length).to.be.at.most(3);
      expect(ALLOWED_UPWARD.filter(({ from, to }) => !roomImports.has(`${from} → ${to}`))).to.deep.equal([]);
    });
  });
});
