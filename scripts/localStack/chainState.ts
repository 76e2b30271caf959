import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ZeroHash, dataSlice, getAddress, hexlify, id } from "ethers";
import { z } from "zod";
import { PRIVATE_FILE_MODE, makePrivateDirectory, narrowToOwner } from "../../gateway/crypto/privateFiles";
import { CHAIN_NODE_KINDS, type ChainNode, type ChainNodeKind, startChainNode } from "./chainNode";

/**
 * The files that tie a data directory to its chain: which chain its records belong to (`chain.json`), anvil's saved
 * state (`chain-state.json`), and the state being saved (`chain-state.saving.json`, renamed into place once whole).
 */
export function chainStateFiles(dataDir: string) {
  return {
    record: path.join(dataDir, "chain.json"),
    state: path.join(dataDir, "chain-state.json"),
    saving: path.join(dataDir, "chain-state.saving.json"),
  };
}

/**
 * Where the local stack marks its chain: one storage slot of an account no contract uses, set to a random value when
 * the chain is new. The value travels with the chain's state, so a chain and a data directory match only if both
 * hold the same one (a genesis hash would not do: two fresh chains started in the same second share it).
 */
export const CHAIN_MARKER_ADDRESS = getAddress(dataSlice(id("idwallet:local-chain-marker"), 12));

const Hex32 = z.string().regex(/^0x[0-9a-f]{64}$/);

/** `chain.json`: the chain the data directory's records belong to. */
const ChainRecord = z.object({
  marker: Hex32,
  node: z.enum(CHAIN_NODE_KINDS),
  /** true once a clean stop saved the chain (anvil) after the last start: chain-state.json then holds every record's chain. */
  saved: z.boolean(),
  /** The test ENS registry (a plain CREATE: its address follows the admin's nonce, so a restored chain reuses it). */
  ens: z.object({ domain: z.string(), registry: z.string() }).optional(),
});
type ChainRecord = z.infer<typeof ChainRecord>;

/** The record in `file`, or undefined if there is none or it cannot be read as one (the chain is then new). */
function readChainRecord(file: string): ChainRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return ChainRecord.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

function writeChainRecord(file: string, record: ChainRecord): void {
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  narrowToOwner(file);
}

/** The chain's marker, or undefined on a chain the stack never marked. */
async function readChainMarker(chain: ChainNode): Promise<string | undefined> {
  const value = String(await chain.provider.send("eth_getStorageAt", [CHAIN_MARKER_ADDRESS, "0x0", "latest"]));
  return value === ZeroHash || value === "0x" ? undefined : value.toLowerCase();
}

/** Marks a new chain with a random value (no transaction: no account's nonce moves, no address changes). */
async function markChain(chain: ChainNode): Promise<string> {
  const marker = hexlify(randomBytes(32));
  await chain.provider.send("hardhat_setStorageAt", [CHAIN_MARKER_ADDRESS, "0x0", marker]);
  return marker;
}

/**
 * Why the data's records cannot go on with the chain just started, for the start-up notice; undefined when they can
 * (the chain is the one they belong to).
 */
function whyNewChain(
  kind: ChainNodeKind,
  fresh: boolean,
  previous: ChainRecord | undefined,
  stateFile: boolean,
): string | undefined {
  if (fresh) return "a fresh start was asked for (--fresh, FRESH=1)";
  if (!previous) return "the data directory names no chain (a first start, or data from an older version)";
  if (kind === "hardhat") return "Hardhat's in-process chain is not saved across restarts (CHAIN_NODE=anvil is)";
  if (previous.node !== kind) return `the data's chain ran on ${previous.node}, this one on ${kind}`;
  if (!previous.saved) return "the last run did not save its chain (it did not stop cleanly)";
  if (!stateFile) return "the saved chain state, chain-state.json, is missing";
  return undefined;
}

/** The local chain and how it relates to the data directory's records. */
export interface LocalChain {
  readonly node: ChainNode;
  /** true: the chain the records belong to, restored from the data directory; false: a new chain. */
  readonly restored: boolean;
  /** Why the chain is new (its records from before must then be cleared); undefined when restored. */
  readonly newChainReason?: string;
  /** The test ENS registry the restored chain already has for `domain`, if any. */
  ensRegistry(domain: string): string | undefined;
  /** Records the chain as the data's own, with its test ENS registry: call once it is deployed, before any record. */
  adopt(ens: { domain: string; registry: string }): void;
  /** Stops the chain; anvil's state is saved to chain-state.json and the record marked saved. */
  close(): Promise<void>;
}

/** What the chain is started from and where it lives. */
export interface LocalChainOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly kind: ChainNodeKind;
  /** Start a new chain even if a saved one exists (the caller clears the old chain's records). */
  readonly fresh: boolean;
}

/**
 * Starts the data directory's chain: on anvil, the state a clean stop saved, if the data's records belong to it;
 * otherwise (Hardhat, whose chain cannot be saved; a fresh start; a state lost or left unsaved) a new chain, marked
 * as such, so the caller clears the records of the old one: a data directory's records never meet another chain.
 * The record is marked unsaved at once, so a run that dies without saving its chain is not restored later.
 */
export async function startLocalChain(options: LocalChainOptions): Promise<LocalChain> {
  const files = chainStateFiles(options.dataDir);
  makePrivateDirectory(options.dataDir);
  rmSync(files.saving, { force: true });
  if (options.fresh) for (const file of [files.record, files.state]) rmSync(file, { force: true });
  const previous = readChainRecord(files.record);
  const persists = options.kind === "anvil";
  let reason = whyNewChain(options.kind, options.fresh, previous, existsSync(files.state));
  const load = reason === undefined ? files.state : undefined;
  let node: ChainNode;
  try {
    node = await startChainNode(options.host, options.port, {
      kind: options.kind,
      ...(persists ? { anvilState: { ...(load ? { load } : {}), dump: files.saving } } : {}),
    });
  } catch (error) {
    if (!load) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`could not restore the chain saved in ${load} (${why}): npm start -- --fresh starts anew`);
  }
  try {
    const found = await readChainMarker(node);
    if (reason === undefined && found !== previous?.marker) reason = "the saved chain state is of another chain";
    const restored = reason === undefined;
    let record: ChainRecord = restored
      ? { ...previous!, saved: false }
      : { marker: await markChain(node), node: options.kind, saved: false };
    writeChainRecord(files.record, record);
    const started = node;
    return {
      node: started,
      restored,
      ...(reason ? { newChainReason: reason } : {}),
      ensRegistry: (domain) => (restored && previous?.ens?.domain === domain ? previous.ens.registry : undefined),
      adopt: (ens) => {
        record = { ...record, ens };
        writeChainRecord(files.record, record);
      },
      close: async () => {
        await started.close();
        if (persists && isWholeState(files.saving)) {
          narrowToOwner(files.saving);
          renameSync(files.saving, files.state);
          writeChainRecord(files.record, { ...record, saved: true });
        }
      },
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

/** A state file anvil finished writing: it parses as JSON (one cut short by a kill does not). */
function isWholeState(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return typeof JSON.parse(readFileSync(file, "utf8")) === "object";
  } catch {
    return false;
  }
}
