import { existsSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { computeAddress } from "ethers";
import type { CustodyKey } from "../../gateway/config/custodySettings";
import { loadedPkcs11Modules } from "../../gateway/custody";
import { type CustodyToken, createCustodyToken, readCustodyToken } from "../softhsm/custodyToken";
import { SOFTHSM2_MODULE } from "../softhsm/softHsmToken";
import { devKey } from "./devKeys";

/** The custody keys the local stack has: every one but a previous Safe operator (it rotates nothing). */
export type StackKey = Exclude<CustodyKey, "previousSafeOperator">;

/**
 * Hardhat's dev accounts the local stack gives each custody key (account 0 is the admin and deployer). The same keys
 * whether they are held in the process or in the HSM mode's token, so the deployment trusts them either way.
 */
export const DEV_CUSTODY_ACCOUNTS: Readonly<Record<StackKey, number>> = {
  walletSigner: 1,
  sponsorSigner: 2,
  ccipSigner: 3,
  relayer: 4,
  safeOperator: 5,
};

/** The label of the HSM mode's token. */
export const DEV_TOKEN_LABEL = "idwallet-dev";

/** Where the local stack's custody keys are, and what its configuration says of them. */
export interface DevCustody {
  /** Each key's address (the same in either mode). */
  readonly addresses: Readonly<Record<StackKey, string>>;
  /** The raw dev keys, held in the process (the default mode). */
  readonly rawKeys?: Readonly<Record<StackKey, string>>;
  /** HSM mode: the token holding the keys, its directory, and each key's pkcs11: reference. */
  readonly hsm?: {
    readonly dir: string;
    readonly token: CustodyToken;
    readonly references: Readonly<Record<StackKey, string>>;
  };
  /** Undoes what HSM mode changed in this process (SOFTHSM2_CONF); call once the service is closed. */
  release(): void;
}

const devKeys = (): Record<StackKey, string> =>
  Object.fromEntries(Object.entries(DEV_CUSTODY_ACCOUNTS).map(([key, account]) => [key, devKey(account)])) as Record<
    StackKey,
    string
  >;

/**
 * The token under `dir` holding `keys`: the one an earlier start made, or a new one. A directory without the token's
 * description is a start cut short while making it, and is made again; a token holding other keys is refused.
 */
async function devToken(dir: string, keys: Readonly<Record<StackKey, string>>): Promise<CustodyToken> {
  const found = readCustodyToken(dir);
  if (!found) {
    rmSync(dir, { recursive: true, force: true });
    return createCustodyToken({ dir, token: DEV_TOKEN_LABEL, keys });
  }
  for (const [key, privateKey] of Object.entries(keys) as [StackKey, string][]) {
    if (found.keys[key]?.address !== computeAddress(privateKey)) {
      throw new Error(`${dir} holds a token without the local stack's ${key} key: remove the directory to start anew`);
    }
  }
  return found;
}

/**
 * Points this process's SOFTHSM2_CONF at `configPath`, which SoftHSM2 reads when it is loaded; returns the undo.
 * Refuses while SoftHSM2 is loaded here under another configuration: it lists its tokens only when loaded.
 */
function useSoftHsmConfig(token: CustodyToken): () => void {
  const previous = process.env.SOFTHSM2_CONF;
  const loaded = loadedPkcs11Modules().includes(realpathSync(token.modulePath));
  if (loaded && previous !== token.configPath) {
    throw new Error("SoftHSM2 is loaded in this process with another token directory: close its signers first");
  }
  process.env.SOFTHSM2_CONF = token.configPath;
  return () => {
    if (previous === undefined) delete process.env.SOFTHSM2_CONF;
    else process.env.SOFTHSM2_CONF = previous;
  };
}

/**
 * The local stack's custody keys: raw dev keys in this process, or (`hsm`) the same keys in a SoftHSM2 token under
 * `<dataDir>/softhsm`, made on the first start (in a child process, so this one stays free to load SoftHSM2 after)
 * and reused on every later one, the service signing through PKCS#11.
 */
export async function prepareDevCustody(dataDir: string, hsm: boolean): Promise<DevCustody> {
  const keys = devKeys();
  const addresses = Object.fromEntries(
    Object.entries(keys).map(([key, privateKey]) => [key, computeAddress(privateKey)]),
  ) as Record<StackKey, string>;
  if (!hsm) return { addresses, rawKeys: keys, release: () => undefined };
  if (!existsSync(SOFTHSM2_MODULE))
    throw new Error(`HSM mode needs SoftHSM2 (package softhsm2): no ${SOFTHSM2_MODULE}`);
  const dir = path.resolve(dataDir, "softhsm");
  const token = await devToken(dir, keys);
  const references = Object.fromEntries(
    Object.keys(keys).map((key) => [key, token.keys[key as StackKey]!.reference]),
  ) as Record<StackKey, string>;
  return { addresses, hsm: { dir, token, references }, release: useSoftHsmConfig(token) };
}
