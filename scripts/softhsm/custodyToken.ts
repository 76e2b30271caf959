/**
 * A SoftHSM2 token holding the service's custody keys, for the local stack's HSM mode, tests and benchmarks: made by
 * scripts/softhsm.ts in a child process, its user PIN in a file only the owner may read, described (addresses and
 * references, no secret) in `token.json` beside it so that a later start finds it again.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { computeAddress, isAddress } from "ethers";
import { z } from "zod";
import { CUSTODY_KEYS, type CustodyKey } from "../../gateway/config/custodySettings";
import { SOFTHSM2_MODULE, pkcs11KeyReference } from "./softHsmToken";

const ROOT = path.join(__dirname, "..", "..");
const SCRIPT = path.join(ROOT, "scripts", "softhsm.ts");
const DESCRIPTION_FILE = "token.json";
const PIN_FILE = "pin";

/** The label of each custody key's key pair in the token. */
export const CUSTODY_KEY_LABELS: Readonly<Record<CustodyKey, string>> = {
  walletSigner: "wallet-signer",
  sponsorSigner: "sponsor-signer",
  relayer: "relayer",
  safeOperator: "safe-operator",
  previousSafeOperator: "safe-operator-previous",
  ccipSigner: "ccip-signer",
};

const TokenKey = z.object({ address: z.string().refine(isAddress), reference: z.string().startsWith("pkcs11:") });
const CustodyToken = z.object({
  /** The token's label. */
  token: z.string().min(1),
  /** Its SOFTHSM2_CONF: set in the environment of any process that signs with it. */
  configPath: z.string().min(1),
  modulePath: z.string().min(1),
  /** The user PIN's file (mode 0600), which every reference's pin-source names. */
  pinFile: z.string().min(1),
  keys: z.partialRecord(z.enum(Object.keys(CUSTODY_KEY_LABELS) as [CustodyKey, ...CustodyKey[]]), TokenKey),
});
/** A SoftHSM2 token with custody keys, and each key's address and signer reference. */
export type CustodyToken = z.infer<typeof CustodyToken>;

/** The token a directory holds, as createCustodyToken described it; undefined if it holds none (or half of one). */
export function readCustodyToken(dir: string): CustodyToken | undefined {
  const file = path.join(dir, DESCRIPTION_FILE);
  return existsSync(file) ? CustodyToken.parse(JSON.parse(readFileSync(file, "utf8"))) : undefined;
}

/**
 * Creates a token labelled `token` in `dir` (made 0700) and imports `keys` (0x private keys) into it, each under its
 * CUSTODY_KEY_LABELS label. The token is made in a child process: SoftHSM2 lists its tokens once per process, when
 * it is loaded, so a process that has it loaded already would not see a new token (and createSoftHsmToken refuses).
 */
export async function createCustodyToken(options: {
  dir: string;
  token: string;
  keys: Readonly<Partial<Record<CustodyKey, string>>>;
  modulePath?: string;
}): Promise<CustodyToken> {
  const dir = path.resolve(options.dir);
  const modulePath = options.modulePath ?? SOFTHSM2_MODULE;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pinFile = path.join(dir, PIN_FILE);
  writeFileSync(pinFile, randomBytes(16).toString("hex"), { mode: 0o600, flag: "wx" });
  const entries = Object.entries(options.keys) as [CustodyKey, string][];
  // The keys to import sit in files of their own, owner-only, for as long as the script runs.
  const keyDir = mkdtempSync(path.join(dir, "import-"));
  try {
    const imports = entries.flatMap(([key, privateKey]) => {
      const file = path.join(keyDir, key);
      writeFileSync(file, privateKey, { mode: 0o600 });
      return ["--import", `${CUSTODY_KEY_LABELS[key]}=${file}`];
    });
    const args = ["--dir", dir, "--label", options.token, "--pin-file", pinFile, "--module", modulePath];
    const soPin = ["--so-pin", randomBytes(16).toString("hex")];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", SCRIPT, ...args, ...soPin, ...imports],
      { cwd: ROOT, env: withoutSoftHsmConfig(process.env) },
    );
    const configPath = /^SOFTHSM2_CONF=(.+)$/m.exec(stdout)?.[1];
    if (!configPath) throw new Error(`scripts/softhsm.ts printed no SOFTHSM2_CONF: ${stdout}`);
    const keys: CustodyToken["keys"] = {};
    for (const [key, privateKey] of entries) {
      const object = CUSTODY_KEY_LABELS[key];
      const address = computeAddress(privateKey);
      if (!stdout.includes(`${object}: ${address} (imported)`)) throw new Error(`the token lacks ${object}: ${stdout}`);
      keys[key] = { address, reference: pkcs11KeyReference({ token: options.token, object, modulePath, pinFile }) };
    }
    const made: CustodyToken = { token: options.token, configPath, modulePath, pinFile, keys };
    // Written last: its presence says the token is complete.
    writeFileSync(path.join(dir, DESCRIPTION_FILE), `${JSON.stringify(made, null, 2)}\n`);
    return made;
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
}

/** `env` less SOFTHSM2_CONF: the script points it at the token it makes. */
function withoutSoftHsmConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { SOFTHSM2_CONF: _ignored, ...rest } = env;
  return rest;
}

/**
 * `env` (the service's settings) with every raw key setting (`WALLET_SIGNER_KEY`, …, `CCIP_SIGNER_KEYS`) removed and
 * each of the token's keys named by its reference setting (`WALLET_SIGNER`, …), with SOFTHSM2_CONF pointing at it.
 */
export function withTokenKeys(env: Readonly<Record<string, string>>, token: CustodyToken): Record<string, string> {
  const result: Record<string, string> = { ...env, SOFTHSM2_CONF: token.configPath };
  for (const { key, reference, raw } of CUSTODY_KEYS) {
    delete result[raw];
    const held = token.keys[key];
    if (held) result[reference] = held.reference;
  }
  return result;
}
