import { expect } from "chai";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";

const ROOT = path.join(__dirname, "..", "..", "..");
const KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

/** A process started with KEY in IDW_TEST_KEY that runs `script`, prints what it saw, and stays up to be read. */
async function processThatRuns(script: string): Promise<{ child: ChildProcess; saw: Record<string, unknown> }> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", IDW_TEST_KEY: KEY, IDW_TEST_OTHER: "kept" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
  });
  return { child, saw: JSON.parse(line) as Record<string, unknown> };
}

/** What a process of the same user reads of another's environment. */
const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`);

describe("a primary's start-up environment, as another process of its user reads it (/proc/<pid>/environ)", function () {
  this.timeout(30_000);
  const children: ChildProcess[] = [];
  before(function () {
    if (process.platform !== "linux") this.skip();
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  it("still shows a key deleted from process.env: deleting it is not enough", async () => {
    const { child, saw } = await processThatRuns(`
      delete process.env.IDW_TEST_KEY;
      console.log(JSON.stringify({ key: process.env.IDW_TEST_KEY ?? null }));
      setInterval(() => undefined, 1000);`);
    children.push(child);
    expect(saw).to.deep.equal({ key: null });
    expect(environOf(child.pid!).includes(`IDW_TEST_KEY=${KEY}`)).to.equal(true);
  });

  it("shows none of a key erased by eraseStartupEnvironment, and every other setting as it was", async () => {
    const { child, saw } = await processThatRuns(`
      const { eraseStartupEnvironment } = require("./gateway/custody/startupEnvironment");
      const erased = eraseStartupEnvironment(["IDW_TEST_KEY", "IDW_TEST_ABSENT"]);
      delete process.env.IDW_TEST_KEY;
      console.log(JSON.stringify({ erased, other: process.env.IDW_TEST_OTHER }));
      setInterval(() => undefined, 1000);`);
    children.push(child);
    expect(saw).to.deep.equal({ erased: ["IDW_TEST_KEY"], other: "kept" });
    const environ = environOf(child.pid!);
    for (const spelling of [KEY, KEY.slice(2), KEY.slice(2, 18)]) expect(environ.includes(spelling)).to.equal(false);
    const settings = environ.toString("latin1").split("\0");
    expect(settings).to.include.members(["IDW_TEST_OTHER=kept", "IDW_TEST_KEY=", `PATH=${process.env.PATH ?? ""}`]);
  });
});
