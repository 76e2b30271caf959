import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";

/** Owner read and write only: the database, its -wal and -shm, the SMS outbox, the local stack's secrets. */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner only: a data directory the service creates. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Creates `dir` and its missing parents with mode 0700. An existing directory keeps its mode: it may be shared (the
 * working directory, /var/lib) and what matters is the files in it.
 */
export function makePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/**
 * Creates `file` empty with mode 0600 if it does not exist, so whatever writes it next (SQLite, an append) finds it
 * private instead of creating it with the process umask (commonly 0644: readable by every local user). An existing
 * file open to group or others is narrowed to 0600; one this user may not chmod (another owner's) is left alone.
 */
export function makePrivateFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  narrowToOwner(file);
}

/** Narrows an existing file open to group or others to 0600; nothing if it is absent, private or not ours. */
export function narrowToOwner(file: string): void {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
  }
}
