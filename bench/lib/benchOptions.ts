import os from "node:os";

/** A `--<name>=<seconds>` option of a benchmark, 1 to 600 s, or `fallback`. */
export function argSeconds(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg === undefined ? fallback : Number(arg.slice(name.length + 3));
  if (!Number.isFinite(value) || value <= 0 || value > 600) throw new Error(`--${name} must be 1..600 seconds`);
  return value;
}

/** The line every benchmark table carries: the machine it ran on and the date. */
export function machineLine(): string {
  const cpus = os.cpus();
  return (
    `Machine: ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${cpus.length} cores, Node ${process.version}, ` +
    `${os.platform()} ${os.arch()}. Date: ${new Date().toISOString().slice(0, 10)}.`
  );
}
