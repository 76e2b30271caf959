import { randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { LeaseHolder } from "./lease";

/** This process as a lease holder; `instanceId` names the instance (INSTANCE_ID), the host name by default. */
export function thisProcessHolder(instanceId: string | undefined): LeaseHolder {
  return { id: randomUUID(), host: instanceId ?? hostname(), pid: process.pid, pidNamespace: pidNamespace() };
}

/**
 * This boot of this machine and this process's pid namespace (Linux); elsewhere the host name and a random id, so no
 * other process is ever taken for an exited one of ours (its lease is then waited for).
 */
function pidNamespace(): string {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    return `${boot}/${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return `${hostname()}/${randomUUID()}`;
  }
}

/**
 * Whether the process `pid` of this instance has exited, so a lease it held can be taken over at once after a restart
 * instead of when it ends. Only on this host (the caller checks the instance) and never this very process: a second
 * service started in this process (tests) is alive, and a restarted container whose service is process 1 again
 * cannot tell its predecessor from itself, so it waits for the lease to end.
 */
export function processExited(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
