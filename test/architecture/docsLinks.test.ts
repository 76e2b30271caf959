import { expect } from "chai";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
/** The Markdown files of the manual: the README, ARCHITECTURE and every page under docs/. */
const PAGES = [
  "README.md",
  "ARCHITECTURE.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
/** A Markdown link or image whose target is not a URL: `[text](target)`. */
const RELATIVE_LINK = /\]\((?!https?:|mailto:)([^)\s]+)\)/g;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe("the documentation", () => {
  it("has no broken relative link: every target file exists, every #anchor is a heading there", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(path.join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const [, target] of text.matchAll(RELATIVE_LINK)) {
        const [file, anchor] = target!.split("#") as [string, string | undefined];
        const resolved = file === "" ? page : path.normalize(path.join(path.dirname(page), file));
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no ${resolved})`);
        else if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("links every page of docs/ from the README, and keeps the README a front door (at most 250 lines)", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const unlinked = PAGES.filter((page) => page.startsWith("docs/") && !readme.includes(`](${page})`));
    expect(unlinked).to.deep.equal([]);
    expect(readme.split("\n").length).to.be.at.most(250);
  });
});
