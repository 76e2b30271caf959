/**
 * Where the CPU went during a measured run, read from Linux /proc: the server's processes (the child and
 * its cluster workers), and everything else on the machine except this load-generating process. On a
 * shared machine the second figure says how far a run's throughput was held down by others' work.
 */
import { readFileSync, readdirSync } from "node:fs";

/** Clock ticks per second of /proc figures (USER_HZ, 100 on every mainstream Linux build). */
const TICKS_PER_SECOND = 100;

/** Cumulative CPU ticks at one instant. */
export interface CpuSample {
  readonly machineBusy: number;
  readonly machineTotal: number;
  readonly server: number;
  readonly generator: number;
}

/** What a run cost, from two samples. */
export interface CpuUse {
  /** Server CPU time (all its processes) per request, in microseconds. */
  readonly serverMicrosPerRequest: number;
  /** Share of the machine's CPU used by processes other than the server and the load generator, in %. */
  readonly otherLoadPercent: number;
}

/** utime + stime and the parent pid of a process, or undefined if it is gone. */
function processTicks(pid: string): { ppid: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** A sample for the server process tree rooted at `serverPid`, or undefined where /proc is not available. */
export function sampleCpu(serverPid: number): CpuSample | undefined {
  let machine: number[];
  try {
    machine = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  } catch {
    return undefined;
  }
  // user nice system idle iowait irq softirq steal: idle and iowait are the time nobody ran.
  const machineTotal = machine.slice(0, 8).reduce((a, b) => a + b, 0);
  const machineBusy = machineTotal - machine[3]! - machine[4]!;
  const processes = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const p = processTicks(entry);
    if (p) processes.set(Number(entry), p);
  }
  const inServer = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = processes.get(p)?.ppid) {
      if (p === serverPid) return true;
    }
    return false;
  };
  let server = 0;
  for (const [pid, p] of processes) if (inServer(pid)) server += p.ticks;
  return { machineBusy, machineTotal, server, generator: processes.get(process.pid)?.ticks ?? 0 };
}

/** The cost of `requests` requests between two samples. */
export function cpuUse(before: CpuSample, after: CpuSample, requests: number): CpuUse {
  const server = after.server - before.server;
  const ours = server + after.generator - before.generator;
  const other = Math.max(0, after.machineBusy - before.machineBusy - ours);
  return {
    serverMicrosPerRequest: ((server / TICKS_PER_SECOND) * 1e6) / requests,
    otherLoadPercent: (100 * other) / Math.max(1, after.machineTotal - before.machineTotal),
  };
}
