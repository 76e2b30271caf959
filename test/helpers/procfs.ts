import { closeSync, openSync, readFileSync, readSync, readdirSync } from "node:fs";

// What any process of a user can read of another process of that user on Linux (proc(5)): the attacker's view of
// a cluster's processes once it runs code in one of them.

/** The processes `pid` has forked and that still run: its children, from every one of its threads. */
export function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
}

/** The process's parent. */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** The environment the process started with, as `/proc/<pid>/environ` shows it: raw bytes. */
export const environOf = (pid: number): Buffer => readFileSync(`/proc/${pid}/environ`);

/** The environment's `NAME=value` entries. */
export const environEntries = (pid: number): string[] => environOf(pid).toString("latin1").split("\0").filter(Boolean);

const CHUNK = 8 * 1024 * 1024;

/**
 * Which of `needles` occur anywhere in the process's readable memory (every mapping of /proc/<pid>/maps with read
 * permission, read through /proc/<pid>/mem, as ptrace allows a process of the same user where no Yama rule stops
 * it). Returns the indexes of those found.
 */
export function findInMemory(pid: number, needles: readonly Buffer[]): Set<number> {
  const found = new Set<number>();
  const overlap = Math.max(...needles.map((n) => n.length)) - 1;
  const mappings = readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .filter((line) => line[line.indexOf(" ") + 1] === "r" && !/\[(vvar|vvar_vclock|vsyscall)\]$/.test(line))
    .map(
      (line) =>
        line
          .slice(0, line.indexOf(" "))
          .split("-")
          .map((hex) => parseInt(hex, 16)) as [number, number],
    );
  const mem = openSync(`/proc/${pid}/mem`, "r");
  const buffer = Buffer.alloc(CHUNK + overlap);
  try {
    for (const [start, end] of mappings) {
      for (let at = start; at < end; at += CHUNK) {
        let read: number;
        try {
          read = readSync(mem, buffer, 0, Math.min(CHUNK + overlap, end - at), at);
        } catch {
          break; // A mapping that cannot be read (gone meanwhile, or a device's): nothing in it to find.
        }
        const view = buffer.subarray(0, read);
        needles.forEach((needle, i) => {
          if (!found.has(i) && view.includes(needle)) found.add(i);
        });
      }
    }
  } finally {
    closeSync(mem);
  }
  return found;
}
