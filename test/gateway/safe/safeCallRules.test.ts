import { expect } from "chai";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { Wallet } from "ethers";
import { safeInterface } from "../../../gateway/safe/encoding/safeArtifacts";
import { SAFE_CONFIGURATION_FUNCTIONS, refusedSafeCalls } from "../../../gateway/safe/model/safeCallRules";

const SOURCES = path.join(path.dirname(require.resolve("@safe-global/safe-smart-account/package.json")), "contracts");

/** Every Solidity file of the released Safe 1.5.0 contracts the singleton is built from (Safe.sol and what it inherits). */
const safeSources = (): string[] =>
  ["Safe.sol", ...["base", "common"].flatMap((dir) => readdirSync(path.join(SOURCES, dir)).map((f) => `${dir}/${f}`))]
    .filter((file) => file.endsWith(".sol"))
    .map((file) => readFileSync(path.join(SOURCES, file), "utf8"))
    // Comments hold example code (FallbackManager's `function withdraw() internal authorized`).
    .map((source) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, ""));

describe("Safe call rules: what could change a Safe's configuration", () => {
  it("names every function Safe 1.5.0 guards with `authorized` (only the Safe itself may call it), no more", () => {
    const authorized = new Set<string>();
    for (const source of safeSources()) {
      for (const match of source.matchAll(/function\s+(\w+)\s*\([^)]*\)[^{;]*\bauthorized\b/g))
        authorized.add(match[1]!);
    }
    expect(authorized.size, "functions found in the Safe sources").to.be.greaterThan(5);
    expect([...authorized].sort()).to.deep.equal([...SAFE_CONFIGURATION_FUNCTIONS].sort());
  });

  it("refuses a self-call in any address case, a delegatecall anywhere, and a configuration call to another contract", () => {
    const safe = Wallet.createRandom().address;
    const other = Wallet.createRandom().address;
    const setGuard = safeInterface.encodeFunctionData("setGuard", [other]);
    expect(
      refusedSafeCalls(
        [
          { to: safe.toLowerCase(), value: 0n, data: "0x", operation: 0 },
          { to: other, value: 0n, data: setGuard, operation: 0 },
          { to: other, value: 0n, data: "0x12345678", operation: 1 },
          { to: other, value: 1n, data: "0x12345678", operation: 0 },
          { to: safe, value: 0n, data: setGuard.slice(0, 8), operation: 0 },
        ],
        safe,
      ),
    ).to.deep.equal([
      { index: 0, to: safe, reason: "SELF_CALL" },
      { index: 1, to: other, reason: "CONFIGURATION_CALL", function: "setGuard" },
      { index: 2, to: other, reason: "DELEGATECALL" },
      { index: 4, to: safe, reason: "SELF_CALL" },
    ]);
  });
});
