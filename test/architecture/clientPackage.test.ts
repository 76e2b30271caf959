import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const SDK = path.join(__dirname, "..", "..", "sdk");
const SOURCES = path.join(SDK, "src");
const GENERATED = path.join(SOURCES, "generated");

/** Every TypeScript source of the client package. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

/** What a file imports: `from "x"`, `import "x"`, `import("x")`. */
const SPECIFIER = /(?:\bfrom\s+|(?:^|\n)\s*import\s+|\bimport\s*\(\s*)"([^"]+)"/g;

describe("the client package (sdk/) stands alone", () => {
  const manifest = JSON.parse(readFileSync(path.join(SDK, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    exports: Record<string, unknown>;
    type: string;
  };
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);

  it("imports only its own files and the packages its package.json declares (never the service's code)", () => {
    const strays: string[] = [];
    for (const file of sources(SOURCES)) {
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
        const where = path.relative(SDK, file);
        if (specifier!.startsWith(".")) {
          const target = path.resolve(path.dirname(file), specifier!);
          if (!target.startsWith(SOURCES + path.sep)) strays.push(`${where}: ${specifier} leaves the package`);
          if (!specifier!.endsWith(".js")) strays.push(`${where}: ${specifier} lacks the .js an ESM import needs`);
          continue;
        }
        const name = specifier!.startsWith("@")
          ? specifier!.split("/").slice(0, 2).join("/")
          : specifier!.split("/")[0]!;
        if (!declared.has(name)) strays.push(`${where}: ${specifier} is not a declared dependency`);
      }
    }
    expect(strays).to.deep.equal([]);
  });

  it("is an ESM package with an exports map that names its types", () => {
    expect(manifest.type).to.equal("module");
    expect(manifest.exports["."]).to.deep.include({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  });

  it("keeps each hand-written file under 300 lines", () => {
    const long = sources(SOURCES)
      .filter((file) => !file.startsWith(GENERATED) && readFileSync(file, "utf8").split("\n").length > 300)
      .map((file) => path.relative(SDK, file));
    expect(long).to.deep.equal([]);
  });
});
