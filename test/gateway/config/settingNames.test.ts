import { expect } from "chai";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { CUSTODY_KEYS } from "../../../gateway/config/custodySettings";
import { ConfigError, RENAMED_SETTINGS, SETTING_NAMES, loadConfig } from "../../../gateway/config/load";
import { LOCAL_STACK_SETTINGS } from "../../../scripts/localStack/stackSettings";

const ROOT = path.join(__dirname, "..", "..", "..");
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/** The start-up refusal of `env`'s settings. */
const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
};

describe("one name per setting", () => {
  it("an operator's old key setting stops the start, naming the new one, rather than being silently ignored", () => {
    const renamed = {
      RELAYER_KEY: "RELAYER_SIGNER_KEY",
      SAFE_OPERATOR_KEY: "SAFE_OPERATOR_SIGNER_KEY",
      SAFE_OPERATOR_PREVIOUS_KEY: "SAFE_OPERATOR_PREVIOUS_SIGNER_KEY",
    };
    for (const [old, now] of Object.entries(renamed)) {
      expect(refusal({ [old]: KEY })).to.equal(`${old} is now called ${now}; rename it`);
      expect(SETTING_NAMES).to.include(now).and.not.include(old);
    }
  });

  it("each key's raw setting is its reference setting's name with _KEY (the CCIP signer's list: _KEYS)", () => {
    for (const { reference, raw } of CUSTODY_KEYS) {
      expect(raw).to.equal(reference === "CCIP_SIGNER" ? `${reference}_KEYS` : `${reference}_KEY`);
      expect(SETTING_NAMES).to.include.members([reference, raw]);
    }
  });

  it("every setting of the operations tables and of .env.example's assignments is one the service (or the local stack) reads", () => {
    const table = readFileSync(path.join(ROOT, "docs", "operations.md"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    expect(table.length).to.be.greaterThan(100);
    const read = new Set<string>([...SETTING_NAMES, ...LOCAL_STACK_SETTINGS]);
    expect(table.filter((name) => !read.has(name))).to.deep.equal([]);
    // .env.example's settings, but those of the sections for a script (`npm run deploy`, …): the service reads each.
    let section = "";
    const notRead: string[] = [];
    for (const line of readFileSync(path.join(ROOT, ".env.example"), "utf8").split("\n")) {
      section = /^# ---- (.*?) -+$/.exec(line)?.[1] ?? section;
      const name = /^(?:# )?([A-Z][A-Z0-9_]+)=/.exec(line)?.[1];
      if (name && !section.includes("npm run") && !SETTING_NAMES.includes(name)) notRead.push(name);
    }
    // The admin CLI's own (`npm run admin -- keys …`), never the service's.
    expect(notRead).to.deep.equal(["ADMIN_PRIVATE_KEY"]);
  });

  it("a renamed setting's old name appears in README.md and docs/*.md only in a note naming it renamed (`OLD` is now `NEW`)", () => {
    const files = [
      "README.md",
      ...readdirSync(path.join(ROOT, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => path.join("docs", name)),
    ];
    const found = files.map((file) => oldNamesIn(file, readFileSync(path.join(ROOT, file), "utf8")));
    expect(found.flatMap((f) => f.strays)).to.deep.equal([]);
    // The note is there for each, so an operator with an old name finds the new one in the docs too.
    const noted = new Set(found.flatMap((f) => f.noted));
    expect([...noted].sort()).to.deep.equal(RENAMED_SETTINGS.map(([old]) => old).sort());
    // The check itself: an old name used as a setting is found, with its line.
    const stray = oldNamesIn(
      "x.md",
      "Renamed: `RELAYER_KEY` is now\n`RELAYER_SIGNER_KEY`.\nSet `SAFE_OPERATOR_KEY=0x…`.",
    );
    expect(stray).to.deep.equal({
      strays: ["x.md:3: SAFE_OPERATOR_KEY (now SAFE_OPERATOR_SIGNER_KEY)"],
      noted: ["RELAYER_KEY"],
    });
  });
});

/**
 * Where `text` names a renamed setting by its old name: in a note naming it renamed (`OLD` is now `NEW`, or `OLD`
 * `NEW` in a list of such pairs), or elsewhere, a stray (`file:line: OLD (now NEW)`).
 */
function oldNamesIn(file: string, text: string): { strays: string[]; noted: string[] } {
  const strays: string[] = [];
  const noted: string[] = [];
  for (const [old, now] of RENAMED_SETTINGS) {
    const note = new RegExp(`^\`${old}\`(?:\\s+is\\s+now)?\\s+\`${now}\``);
    for (const match of text.matchAll(new RegExp(`\\b${old}\\b`, "g"))) {
      if (match.index > 0 && note.test(text.slice(match.index - 1))) noted.push(old);
      else strays.push(`${file}:${text.slice(0, match.index).split("\n").length}: ${old} (now ${now})`);
    }
  }
  return { strays, noted };
}
