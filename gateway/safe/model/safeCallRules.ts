import { dataSlice, getAddress } from "ethers";
import { z } from "zod";
import { safeInterface } from "../encoding/safeArtifacts";
import type { SafeCall } from "../encoding/safeTransaction";

/**
 * Safe 1.5.0's configuration functions: every function guarded by `authorized` (SelfAuthorized: msg.sender must be
 * the Safe itself), i.e. what changes who controls the Safe: its owners and threshold (OwnerManager), its modules
 * and module guard (ModuleManager: a module executes without any owner's signature), its transaction guard
 * (GuardManager: it can veto every transaction, the customer's too) and its fallback handler (FallbackManager).
 */
export const SAFE_CONFIGURATION_FUNCTIONS = [
  "addOwnerWithThreshold",
  "removeOwner",
  "swapOwner",
  "changeThreshold",
  "enableModule",
  "disableModule",
  "setModuleGuard",
  "setGuard",
  "setFallbackHandler",
] as const;

const CONFIGURATION_SELECTORS: ReadonlyMap<string, string> = new Map(
  SAFE_CONFIGURATION_FUNCTIONS.map((name) => [safeInterface.getFunction(name)!.selector, name]),
);

/**
 * Why a Safe call is refused without the operator's grant (stable, documented in docs/safe.md):
 * - `SELF_CALL`: it targets the Safe itself, the only caller its configuration functions accept;
 * - `DELEGATECALL`: the target's code runs as the Safe, on its storage, and can rewrite its owners or modules;
 * - `CONFIGURATION_CALL`: a Safe configuration function sent to another contract, which the Safe may administer
 *   (a module or modifier it owns, another Safe it is an owner or module of) and through which it may be reached.
 */
export const SafeCallRefusalReason = z.enum(["SELF_CALL", "DELEGATECALL", "CONFIGURATION_CALL"]);
/** See {@link SafeCallRefusalReason}. */
export type SafeCallRefusalReason = z.infer<typeof SafeCallRefusalReason>;

/** One refused call: its index in the request (0, or the transfer's), its target (EIP-55), why, and which function. */
export interface RefusedSafeCall {
  readonly index: number;
  readonly to: string;
  readonly reason: SafeCallRefusalReason;
  /** The Safe configuration function the call names, if it names one. */
  readonly function?: string;
}

const DESCRIPTIONS: Readonly<Record<SafeCallRefusalReason, string>> = {
  SELF_CALL: "targets the Safe itself",
  DELEGATECALL: "is a delegatecall (its code runs as the Safe)",
  CONFIGURATION_CALL: "is a Safe configuration call",
};

/** Why these calls are refused, in words: each call, then what would allow it. */
export function describeRefusedSafeCalls(refused: readonly RefusedSafeCall[]): string {
  const each = refused.map(
    (call) => `call ${call.index} ${DESCRIPTIONS[call.reason]}${call.function ? ` (${call.function})` : ""}`,
  );
  return (
    `${each.join("; ")}: changing a Safe's owners, threshold, modules, guards or fallback handler needs the ` +
    "customer's own key, unless the operator granted this app Safe configuration calls"
  );
}

/** The Safe configuration function `data` calls, if it calls one. */
export function configurationFunctionOf(data: string): string | undefined {
  return data.length >= 10 ? CONFIGURATION_SELECTORS.get(dataSlice(data, 0, 4).toLowerCase()) : undefined;
}

/**
 * The calls, of those a Safe transaction makes as `safe`, that could change its configuration (design invariant 9:
 * changing a Safe's owners, modules, guard or handler needs the customer). Addresses are compared in one case, so a
 * target spelt in another does not slip by.
 */
export function refusedSafeCalls(calls: readonly SafeCall[], safe: string): RefusedSafeCall[] {
  const self = getAddress(safe);
  const refused: RefusedSafeCall[] = [];
  calls.forEach((call, index) => {
    const to = getAddress(call.to);
    const fn = configurationFunctionOf(call.data);
    const named = fn === undefined ? {} : { function: fn };
    if (to === self) refused.push({ index, to, reason: "SELF_CALL", ...named });
    else if (fn !== undefined) refused.push({ index, to, reason: "CONFIGURATION_CALL", ...named });
    if (call.operation === 1) refused.push({ index, to, reason: "DELEGATECALL" });
  });
  return refused;
}
