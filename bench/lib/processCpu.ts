/**
 * CPU time of named processes over a measured window, read from Linux /proc: each named process with its descendants
 * (a process counts for the nearest named ancestor, so a child the bench started is not counted twice), and the
 * share of the machine used by everything else. utime + stime of live processes, cutime + cstime of reaped children.
 */
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks per second of /proc figures (USER_HZ: 100 on every mainstream Linux build). */
const TICKS_PER_SECOND = 100;

/** Cumulative CPU ticks at one instant, per name, and of the whole machine. */
export interface CpuSnapshot {
  readonly ticks: Readonly<Record<string, number>>;
  readonly machineBusy: number;
  readonly machineTotal: number;
  /** When it was taken (performance.now(), ms). */
  readonly at: number;
}

/** What a window cost: milliseconds of CPU per name, and the share of the machine others used, in %. */
export interface CpuSpent {
  readonly ms: Readonly<Record<string, number>>;
  readonly otherLoadPercent: number;
  /** The window's wall-clock length, ms. */
  readonly wallMs: number;
}

interface ProcessTicks {
  readonly ppid: number;
  readonly ticks: number;
}

/** Parent pid and CPU ticks (own and reaped children's) of a process, or undefined if it is gone. */
function processTicks(pid: string): ProcessTicks | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may itself contain spaces: field 4 (ppid) is at
    // index 1, fields 14–17 (utime, stime, cutime, cstime) at 11–14.
    const f = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    return { ppid: f[1]!, ticks: f[11]! + f[12]! + f[13]! + f[14]! };
  } catch {
    return undefined;
  }
}

/** Busy and total ticks of the machine (first line of /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the time nobody ran.
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/** Ticks so far of each named process tree (`roots`: name → pid). */
export function snapshotCpu(roots: Readonly<Record<string, number>>): CpuSnapshot {
  const processes = new Map<number, ProcessTicks>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const p = processTicks(entry);
    if (p) processes.set(Number(entry), p);
  }
  const nameOf = new Map(Object.entries(roots).map(([name, pid]) => [pid, name]));
  const ticks: Record<string, number> = Object.fromEntries(Object.keys(roots).map((name) => [name, 0]));
  for (const [pid, p] of processes) {
    for (let q: number | undefined = pid; q !== undefined && q > 1; q = processes.get(q)?.ppid) {
      const name = nameOf.get(q);
      if (name === undefined) continue;
      ticks[name]! += p.ticks;
      break;
    }
  }
  const machine = machineTicks();
  return { ticks, machineBusy: machine.busy, machineTotal: machine.total, at: performance.now() };
}

/** CPU spent between two snapshots of the same roots. */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  const ms: Record<string, number> = {};
  let ours = 0;
  for (const [name, ticks] of Object.entries(after.ticks)) {
    const spent = ticks - (before.ticks[name] ?? 0);
    ours += spent;
    ms[name] = (spent * 1000) / TICKS_PER_SECOND;
  }
  const other = Math.max(0, after.machineBusy - before.machineBusy - ours);
  return {
    ms,
    otherLoadPercent: (100 * other) / Math.max(1, after.machineTotal - before.machineTotal),
    wallMs: after.at - before.at,
  };
}
