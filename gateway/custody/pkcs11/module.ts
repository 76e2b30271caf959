import { realpathSync } from "node:fs";
import { CKF_OS_LOCKING_OK, CKR_CRYPTOKI_ALREADY_INITIALIZED, PKCS11, Pkcs11Error } from "pkcs11js";
import { CustodyError } from "../custodyError";

/** A loaded, initialised PKCS#11 module, shared by everything in this process that uses the same library. */
export interface Pkcs11Module {
  /** The module's resolved path. */
  readonly path: string;
  readonly pkcs11: PKCS11;
  /** Ends this holder's use: the last one finalizes and unloads the module. Idempotent. */
  release(): void;
}

interface Loaded {
  readonly pkcs11: PKCS11;
  users: number;
  /** False when someone else in the process had initialised the library: then they finalize it, not us. */
  readonly initializedHere: boolean;
}

// A library is loaded once per process whatever the path it is named by, and its C_Initialize is process-wide (a
// second one fails with CKR_CRYPTOKI_ALREADY_INITIALIZED, a C_Finalize ends it for every user): so one entry per
// real path, counted.
const loaded = new Map<string, Loaded>();

function load(path: string): Loaded {
  const pkcs11 = new PKCS11();
  try {
    pkcs11.load(path);
  } catch (error) {
    throw new CustodyError(`cannot load the PKCS#11 module ${path}: ${(error as Error).message}`);
  }
  let initializedHere = true;
  try {
    // Signing runs on libuv's worker threads (C_Sign's asynchronous form), so the module must lock its state
    // itself; with no arguments SoftHSM2, for one, assumes a single thread and does not.
    pkcs11.C_Initialize({ flags: CKF_OS_LOCKING_OK });
  } catch (error) {
    if (!(error instanceof Pkcs11Error && error.code === CKR_CRYPTOKI_ALREADY_INITIALIZED)) {
      pkcs11.close();
      throw new CustodyError(`cannot initialise the PKCS#11 module ${path}: ${(error as Error).message}`);
    }
    initializedHere = false;
  }
  return { pkcs11, users: 0, initializedHere };
}

/** The module at `modulePath`, loaded and initialised on first use; `release()` it when done. */
export function acquirePkcs11Module(modulePath: string): Pkcs11Module {
  let path: string;
  try {
    path = realpathSync(modulePath);
  } catch (error) {
    throw new CustodyError(
      `cannot load the PKCS#11 module ${modulePath}: ${(error as NodeJS.ErrnoException).code ?? "not found"}`,
    );
  }
  let entry = loaded.get(path);
  if (!entry) {
    entry = load(path);
    loaded.set(path, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    path,
    pkcs11: held.pkcs11,
    release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      loaded.delete(path);
      try {
        if (held.initializedHere) held.pkcs11.C_Finalize();
      } finally {
        held.pkcs11.close();
      }
    },
  };
}

/** The resolved paths of the modules loaded now (for tests and diagnostics). */
export function loadedPkcs11Modules(): string[] {
  return [...loaded.keys()];
}
