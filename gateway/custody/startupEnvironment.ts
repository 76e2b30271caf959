import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/**
 * Where the kernel keeps the environment this process was started with: fields 50 and 51 (env_start, env_end) of
 * /proc/self/stat, proc(5). Counted after the command name, which may itself hold spaces and parentheses.
 */
function startupEnvironmentBlock(): { start: number; end: number } {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) {
    throw new Error("/proc/self/stat names no environment block");
  }
  return { start, end };
}

/** Each `NAME=value` entry of an environment block: where its value starts and ends. */
function* entries(block: Buffer): Generator<{ name: string; from: number; to: number }> {
  for (let at = 0; at < block.length;) {
    const nul = block.indexOf(0, at);
    const end = nul < 0 ? block.length : nul;
    const equals = block.indexOf(0x3d, at);
    if (equals > at && equals < end) yield { name: block.toString("latin1", at, equals), from: equals + 1, to: end };
    at = end + 1;
  }
}

/**
 * Zeroes the values of the settings `names` in the environment block this process started with (Linux). Deleting a
 * variable from `process.env` leaves that block alone, and `/proc/<pid>/environ` shows it to every process of the
 * same user, a cluster's HTTP workers included; so a primary that holds the keys erases them there too before it
 * forks. Call it once the settings are read: the process itself no longer sees those values either. Returns the
 * names it erased; throws where there is no such block to write (not Linux) or the erasure did not take.
 */
export function eraseStartupEnvironment(names: readonly string[]): string[] {
  const { start, end } = startupEnvironmentBlock();
  const erased: string[] = [];
  // A process may write its own memory through /proc/self/mem; the block lies in its stack, which is writable anyway.
  const mem = openSync("/proc/self/mem", "r+");
  try {
    const block = Buffer.alloc(end - start);
    readSync(mem, block, 0, block.length, start);
    for (const { name, from, to } of entries(block)) {
      if (!names.includes(name) || to === from) continue;
      writeSync(mem, Buffer.alloc(to - from), 0, to - from, start + from);
      erased.push(name);
    }
  } finally {
    closeSync(mem);
  }
  const left = [...entries(readFileSync("/proc/self/environ"))].filter((e) => names.includes(e.name) && e.to > e.from);
  if (left.length > 0) throw new Error(`still in the start-up environment: ${left.map((e) => e.name).join(", ")}`);
  return erased;
}
