import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.join(__dirname, "..", "..");

/** The README's client snippet: its TypeScript block that creates the client, as a reader copies it. */
function readmeClientSnippet(): string {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, body]) => body!);
  const snippet = blocks.find((body) => body.includes("createIdwalletClient("));
  expect(snippet, "the README's TypeScript block with createIdwalletClient").to.be.a("string");
  return snippet!;
}

/**
 * What the snippet leaves to its reader: the package's import, and the app's own values (credentials, the texted code,
 * the calls). Nothing else is supplied: a name the snippet uses beyond these fails to compile.
 */
const PRELUDE = `import { createIdwalletClient, type Call } from "@idwallet/client";
declare const clientId: string;
declare const clientSecret: string;
declare const code: string;
declare const calls: readonly Call[];
`;

/** The repository's strictness (tsconfig.json), as an ES module of an app on Node: top-level await allowed. */
const STRICT: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts"],
  types: ["node"],
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  skipLibCheck: true,
  noEmit: true,
};

/** The compiler's errors for `source` as an .mts file in a directory of the worktree (its node_modules resolve). */
function typeErrors(source: string): string[] {
  const dir = mkdtempSync(path.join(ROOT, ".readme-snippet-"));
  try {
    const file = path.join(dir, "snippet.mts");
    writeFileSync(file, source);
    const program = ts.createProgram([file], STRICT);
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the README's client snippet", () => {
  it("is five lines that type-check strictly (noUncheckedIndexedAccess) against the built package", () => {
    const snippet = readmeClientSnippet();
    expect(snippet.trimEnd().split("\n")).to.have.length(5);
    expect(typeErrors(PRELUDE + snippet)).to.deep.equal([]);
  });

  it("would be caught using a resolved user without checking it is there", () => {
    const unchecked = `${PRELUDE}const idwallet = createIdwalletClient({ baseUrl: "", clientId, clientSecret });
const [user] = await idwallet.resolve(["tel:14155552671"]);
console.log(user.accountAddress);
`;
    expect(typeErrors(unchecked)).to.deep.equal(["'user' is possibly 'undefined'."]);
  });
});
