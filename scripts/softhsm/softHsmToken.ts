import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SigningKey, computeAddress, getBytes, hexlify } from "ethers";
import {
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EC_POINT,
  CKA_EXTRACTABLE,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_PRIVATE,
  CKA_SENSITIVE,
  CKA_SIGN,
  CKA_TOKEN,
  CKA_VALUE,
  CKA_VERIFY,
  CKF_RW_SESSION,
  CKF_SERIAL_SESSION,
  CKK_EC,
  CKM_EC_KEY_PAIR_GEN,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
  CKU_USER,
  type Handle,
  type PKCS11,
  type Template,
} from "pkcs11js";
import {
  SECP256K1_EC_PARAMS,
  acquirePkcs11Module,
  decodeEcPoint,
  encodeEcPoint,
  loadedPkcs11Modules,
} from "../../gateway/custody";

/** Where Debian and Ubuntu's softhsm2 package installs the module. */
export const SOFTHSM2_MODULE = "/usr/lib/softhsm/libsofthsm2.so";

/** A key to put in a token: imported when `privateKey` is given (a fixed address), generated inside it otherwise. */
export interface SoftHsmKeySpec {
  readonly label: string;
  readonly privateKey?: string;
}

export interface SoftHsmKey {
  readonly label: string;
  readonly address: string;
  readonly generated: boolean;
}

export interface SoftHsmTokenOptions {
  /** The directory of the configuration file and the tokens (created if missing). */
  readonly dir: string;
  readonly label: string;
  readonly pin: string;
  /** The security officer's PIN; random when not given (then nobody can re-initialise the token or reset its PIN). */
  readonly soPin?: string;
  readonly keys: readonly SoftHsmKeySpec[];
  readonly modulePath?: string;
}

export interface SoftHsmToken {
  /** The SOFTHSM2_CONF of the token: set in the environment of any process that signs with it. */
  readonly configPath: string;
  readonly label: string;
  readonly soPin: string;
  readonly modulePath: string;
  readonly keys: readonly SoftHsmKey[];
}

/** A file path as a PKCS#11 URI query value: percent-encoded, its slashes kept (RFC 7512 §2.3, RFC 3986 pchar). */
const encodePath = (value: string): string => encodeURIComponent(value).replace(/%2F/g, "/");

/**
 * The signer reference of a key in a token (RFC 7512): `pkcs11:token=<token>;object=<key>?module-path=…&pin-source=
 * file:<PIN file>`, as a key setting (WALLET_SIGNER, …) takes it.
 */
export function pkcs11KeyReference(key: {
  token: string;
  object: string;
  modulePath: string;
  pinFile: string;
}): string {
  return (
    `pkcs11:token=${encodeURIComponent(key.token)};object=${encodeURIComponent(key.object)}` +
    `?module-path=${encodePath(key.modulePath)}&pin-source=file:${encodePath(key.pinFile)}`
  );
}

/** `dir`/softhsm2.conf, keeping the tokens in `dir`/tokens (both made if missing); returns the file's path. */
export function writeSoftHsmConfig(dir: string): string {
  const tokens = path.resolve(dir, "tokens");
  mkdirSync(tokens, { recursive: true, mode: 0o700 });
  const configPath = path.resolve(dir, "softhsm2.conf");
  if (!existsSync(configPath)) {
    writeFileSync(configPath, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  }
  return configPath;
}

/** Initialises a new token labelled `label` in the first free slot, with softhsm2-util (the PINs are in its argv). */
export function initSoftHsmToken(options: { configPath: string; label: string; soPin: string; pin: string }): void {
  const args = ["--init-token", "--free", "--label", options.label, "--so-pin", options.soPin, "--pin", options.pin];
  try {
    execFileSync("softhsm2-util", args, {
      env: { ...process.env, SOFTHSM2_CONF: options.configPath },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const output = error as { stderr?: Buffer; stdout?: Buffer; message: string };
    const text = `${output.stdout?.toString() ?? ""}${output.stderr?.toString() ?? ""}`.trim() || output.message;
    throw new Error(`softhsm2-util could not initialise the token "${options.label}": ${text}`);
  }
}

const publicTemplate = (label: string): Template => [
  { type: CKA_CLASS, value: CKO_PUBLIC_KEY },
  { type: CKA_KEY_TYPE, value: CKK_EC },
  { type: CKA_TOKEN, value: true },
  { type: CKA_PRIVATE, value: false },
  { type: CKA_VERIFY, value: true },
  { type: CKA_LABEL, value: label },
  { type: CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS },
];

// The private key never leaves the token: sensitive (its value is never read) and not extractable (never wrapped).
const privateTemplate = (label: string): Template => [
  { type: CKA_CLASS, value: CKO_PRIVATE_KEY },
  { type: CKA_KEY_TYPE, value: CKK_EC },
  { type: CKA_TOKEN, value: true },
  { type: CKA_PRIVATE, value: true },
  { type: CKA_SENSITIVE, value: true },
  { type: CKA_EXTRACTABLE, value: false },
  { type: CKA_SIGN, value: true },
  { type: CKA_LABEL, value: label },
];

/** Puts one key pair in the token; both objects get the label, and the address's 20 bytes as CKA_ID. */
function addKey(pkcs11: PKCS11, session: Handle, spec: SoftHsmKeySpec): SoftHsmKey {
  pkcs11.C_FindObjectsInit(session, [{ type: CKA_LABEL, value: spec.label }]);
  const taken = pkcs11.C_FindObjects(session, 1).length > 0;
  pkcs11.C_FindObjectsFinal(session);
  if (taken) throw new Error(`the token already holds an object labelled "${spec.label}"`);
  if (spec.privateKey !== undefined) {
    const point = getBytes(SigningKey.computePublicKey(spec.privateKey, false));
    const id = { type: CKA_ID, value: Buffer.from(getBytes(computeAddress(spec.privateKey))) };
    pkcs11.C_CreateObject(session, [
      ...publicTemplate(spec.label),
      id,
      { type: CKA_EC_POINT, value: encodeEcPoint(point) },
    ]);
    pkcs11.C_CreateObject(session, [
      ...privateTemplate(spec.label),
      id,
      { type: CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS },
      { type: CKA_VALUE, value: Buffer.from(getBytes(spec.privateKey)) },
    ]);
    return { label: spec.label, address: computeAddress(spec.privateKey), generated: false };
  }
  const pair = pkcs11.C_GenerateKeyPair(
    session,
    { mechanism: CKM_EC_KEY_PAIR_GEN },
    publicTemplate(spec.label),
    privateTemplate(spec.label),
  );
  const [point] = pkcs11.C_GetAttributeValue(session, pair.publicKey, [{ type: CKA_EC_POINT }]);
  const publicKey = point?.value && decodeEcPoint(point.value);
  if (!publicKey) throw new Error(`the token generated "${spec.label}" with no secp256k1 public key`);
  const address = computeAddress(hexlify(publicKey));
  const id = [{ type: CKA_ID, value: Buffer.from(getBytes(address)) }];
  pkcs11.C_SetAttributeValue(session, pair.publicKey, id);
  pkcs11.C_SetAttributeValue(session, pair.privateKey, id);
  return { label: spec.label, address, generated: true };
}

/**
 * Adds secp256k1 keys to the token labelled `label`. SoftHSM2 reads SOFTHSM2_CONF, and lists its tokens, when the
 * module is initialised: `process.env.SOFTHSM2_CONF` must name the token's configuration before the module is loaded.
 */
export function addSoftHsmKeys(options: {
  label: string;
  pin: string;
  keys: readonly SoftHsmKeySpec[];
  modulePath?: string;
}): SoftHsmKey[] {
  const module = acquirePkcs11Module(options.modulePath ?? SOFTHSM2_MODULE);
  const { pkcs11 } = module;
  try {
    const slot = pkcs11.C_GetSlotList(true).find((s) => pkcs11.C_GetTokenInfo(s).label.trimEnd() === options.label);
    if (slot === undefined)
      throw new Error(`no token labelled "${options.label}" (is SOFTHSM2_CONF its configuration?)`);
    const session = pkcs11.C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION);
    try {
      pkcs11.C_Login(session, CKU_USER, options.pin);
      return options.keys.map((spec) => addKey(pkcs11, session, spec));
    } finally {
      pkcs11.C_CloseSession(session);
    }
  } finally {
    module.release();
  }
}

/**
 * A new SoftHSM2 token in `dir` holding `keys`: writes the configuration, initialises the token, adds the keys, and
 * points this process's SOFTHSM2_CONF at it. SoftHSM2 lists tokens once, when initialised, so this refuses to run
 * while the module is loaded in this process: create every token first, then open signers.
 */
export function createSoftHsmToken(options: SoftHsmTokenOptions): SoftHsmToken {
  const modulePath = options.modulePath ?? SOFTHSM2_MODULE;
  if (existsSync(modulePath) && loadedPkcs11Modules().includes(realpathSync(modulePath))) {
    throw new Error("SoftHSM2 is loaded in this process: close its signers before creating a token");
  }
  const configPath = writeSoftHsmConfig(options.dir);
  const soPin = options.soPin ?? randomBytes(8).toString("hex");
  initSoftHsmToken({ configPath, label: options.label, soPin, pin: options.pin });
  process.env.SOFTHSM2_CONF = configPath;
  const keys = addSoftHsmKeys({ label: options.label, pin: options.pin, keys: options.keys, modulePath });
  return { configPath, label: options.label, soPin, modulePath, keys };
}
