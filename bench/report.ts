/**
 * `npm run bench`: runs every benchmark in turn, each in its own process (so none shares an event loop or a
 * warm JIT with another), shows their output as they go, and writes what they report to bench/results.md with
 * the machine, the date and the commit measured. A benchmark that fails stops the run, and no report is written.
 *
 *   npm run bench                       # all of them
 *   npm run bench -- resolver userops   # some of them (the report then holds only these)
 */
import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { machineLine } from "./lib/benchOptions";

const ROOT = path.join(__dirname, "..");
const HARDHAT = path.join(ROOT, "node_modules", ".bin", "hardhat");
const TS_NODE = path.join(ROOT, "node_modules", ".bin", "ts-node");

/** The benchmarks, in the order they run and appear in the report. */
const BENCHMARKS = [
  { name: "resolver", title: "Resolver", command: TS_NODE, args: ["bench/resolver.ts"] },
  { name: "ccip", title: "CCIP-read gateway", command: TS_NODE, args: ["bench/ccip.ts"] },
  { name: "userops", title: "UserOperations", command: HARDHAT, args: ["run", "--no-compile", "bench/userops.ts"] },
  {
    name: "instances",
    title: "Several instances",
    command: HARDHAT,
    args: ["run", "--no-compile", "bench/instances.ts"],
  },
  {
    name: "custody",
    title: "Key-custody signers: signatures per second",
    command: TS_NODE,
    args: ["bench/custodySigners.ts"],
  },
  {
    name: "audit",
    title: "Signature audit log: signatures logged per second",
    command: TS_NODE,
    args: ["bench/auditLog.ts"],
  },
  {
    name: "gas",
    title: "Gas of UserOperations: our accounts against SimpleAccount",
    command: HARDHAT,
    args: ["run", "--no-compile", "bench/gas.ts"],
  },
] as const;

/** Runs one benchmark, echoing its output, and returns what it printed on stdout. */
function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      process.stdout.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(chunks).toString("utf8"))
        : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`)),
    );
  });
}

/** The commit measured, marked when the tree has changes. */
function commit(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s): ${unknown.join(", ")}`);
  const selected = BENCHMARKS.filter((b) => wanted.length === 0 || wanted.includes(b.name));
  // Compiled once up front, its output on stderr: a `hardhat run` that compiles prints to stdout, into the report.
  if (selected.some((b) => b.command === HARDHAT)) {
    execFileSync(HARDHAT, ["compile", "--quiet"], { cwd: ROOT, stdio: ["ignore", 2, "inherit"] });
  }
  const sections: string[] = [];
  for (const bench of selected) {
    console.error(`\n=== ${bench.name} ===`);
    const output = (await run(bench.command, bench.args)).trim();
    // Every section under a heading, for benchmarks that print only their table.
    sections.push(output.startsWith("#") ? output : `## ${bench.title}\n\n${output}`);
  }
  const report = [
    "# Benchmark results",
    "",
    "Written by `npm run bench`; every figure below comes from that one run. These machines are shared and",
    "noisy: read the figures as orders of magnitude and ratios, and compare runs on the same machine only.",
    "",
    machineLine(),
    `Commit: ${commit()}.`,
    "",
    ...sections.flatMap((section) => [section, ""]),
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench", "results.md"), report);
  console.error("\nWrote bench/results.md");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
