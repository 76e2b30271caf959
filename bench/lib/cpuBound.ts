/**
 * What bounds a measured window, read from where its CPU went: a single-threaded process that was busy nearly all
 * the time (its event loop is the bound), else the machine when its cores were nearly all busy, else no CPU at all
 * (then the offered rate, the chain's pace or the serial steps of the work set the figure, which the caller names).
 */
import os from "node:os";
import type { CpuSpent } from "./processCpu";

/** Share of one core above which a single event loop counts as saturated. */
const SATURATED_LOOP = 0.8;
/** Share of the machine's cores above which the machine counts as saturated. */
const SATURATED_MACHINE = 0.85;

/** Cores each named process kept busy on average over the window (CPU ms ÷ wall ms). */
export function coresUsed(cpu: CpuSpent): Record<string, number> {
  const wall = Math.max(1, cpu.wallMs);
  return Object.fromEntries(Object.entries(cpu.ms).map(([name, spent]) => [name, spent / wall]));
}

const share = (cores: number) => cores.toFixed(2);

/**
 * The bound of a window, in words. `keptUp`: the work kept pace with the load offered, which then is the bound
 * whatever the CPU; else `loops` names the processes that do their work on one event loop (their CPU above ~0.8 of a
 * core means that loop is full), then the machine's cores, and `otherwise` says what it is when no CPU was.
 */
export function cpuBound(
  cpu: CpuSpent,
  loops: readonly string[],
  otherwise: string,
  options: { keptUp?: boolean; cores?: number } = {},
): string {
  const cores = options.cores ?? os.cpus().length;
  const used = coresUsed(cpu);
  const busiest = Object.entries(used).sort((a, b) => b[1] - a[1]);
  const summary = busiest.map(([name, c]) => `${name} ${share(c)}`).join(", ");
  if (options.keptUp) return `the offered rate, kept up with (cores: ${summary})`;
  const others = (cpu.otherLoadPercent / 100) * cores;
  const machine = busiest.reduce((sum, [, c]) => sum + c, 0) + others;
  const full = busiest.find(([name, c]) => loops.includes(name) && c >= SATURATED_LOOP);
  if (full) return `${full[0]}'s event loop (cores: ${summary})`;
  if (machine >= SATURATED_MACHINE * cores) {
    return `the machine's ${cores} cores (${summary}${others >= 0.05 ? `, others ${share(others)}` : ""})`;
  }
  return `${otherwise} (cores: ${summary})`;
}
