import { expect } from "chai";
import { execFileSync } from "node:child_process";
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

/** What `npm publish` would put in the tarball, by path (`npm pack --dry-run`, without building: prepack is skipped). */
function packedFiles(): Set<string> {
  const answer = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: SDK,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [pack] = JSON.parse(answer) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((file) => file.path));
}

/** A Markdown link's target: `[text](target)`, or `[text]: target` as a reference. */
const LINK_TARGET = /\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm;

/** What a file imports: `from "x"`, `import "x"`, `import("x")`. */
const SPECIFIER = /(?:\bfrom\s+|(?:^|\n)\s*import\s+|\bimport\s*\(\s*)"([^"]+)"/g;

describe("the client package (sdk/) stands alone", () => {
  const manifest = JSON.parse(readFileSync(path.join(SDK, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    exports: Record<string, unknown>;
    type: string;
    files: string[];
    publishConfig?: { access?: string };
    repository?: { type?: string; url?: string; directory?: string };
    homepage?: string;
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

  it("publishes as it stands: public (a scoped package is private unless told), with where it comes from", () => {
    expect(manifest.publishConfig).to.deep.equal({ access: "public" });
    expect(manifest.repository).to.include({ type: "git", directory: "sdk" });
    expect(manifest.repository?.url).to.match(/^git\+https:\/\/\S+\.git$/);
    expect(manifest.homepage).to.match(/^https:\/\/\S+$/);
  });

  it("ships what its source maps point at, and its README's links work outside this repository (on npm)", () => {
    const packed = packedFiles();
    for (const file of ["package.json", "README.md", "dist/index.js", "dist/index.d.ts"]) {
      expect(packed.has(file), file).to.equal(true);
    }
    const dangling: string[] = [];
    for (const map of [...packed].filter((file) => file.endsWith(".map"))) {
      const { sources: mapped } = JSON.parse(readFileSync(path.join(SDK, map), "utf8")) as { sources: string[] };
      for (const source of mapped) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), source));
        if (!packed.has(target)) dangling.push(`${map} -> ${target}`);
      }
    }
    expect(dangling).to.deep.equal([]);
    expect([...packed].filter((file) => file.endsWith(".map")).length, "maps built (npm run sdk:build)").to.be.above(0);

    const readme = readFileSync(path.join(SDK, "README.md"), "utf8").replace(/```[\s\S]*?```/g, "");
    const targets = [...readme.matchAll(LINK_TARGET)].map(([, inline, reference]) => (inline ?? reference)!);
    expect(targets.filter((target) => !/^https:\/\//.test(target))).to.deep.equal([]);
  });

  it("keeps each hand-written file under 300 lines", () => {
    const long = sources(SOURCES)
      .filter((file) => !file.startsWith(GENERATED) && readFileSync(file, "utf8").split("\n").length > 300)
      .map((file) => path.relative(SDK, file));
    expect(long).to.deep.equal([]);
  });
});
