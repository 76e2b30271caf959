import { CustodyError } from "./custodyError";
import { UNENCODED_HINT, formatPkcs11Path, parsePkcs11Uri, quotedAttribute } from "../config/pkcs11Uri";

/** Where a token's user PIN comes from: a file (RFC 7512 pin-source) or the URI itself (pin-value). */
export type PinSource =
  { readonly kind: "file"; readonly path: string } | { readonly kind: "value"; readonly pin: string };

/** A key in a PKCS#11 token, found by the token's label and the key's label. */
export interface Pkcs11Reference {
  readonly kind: "pkcs11";
  readonly setting: string;
  readonly token: string;
  readonly object: string;
  readonly modulePath: string;
  readonly pin: PinSource;
  readonly description: string;
}

/** A Web3 Secret Storage (keystore) JSON file and the file holding its password. */
export interface KeystoreReference {
  readonly kind: "keystore";
  readonly setting: string;
  readonly path: string;
  readonly passwordFile: string;
  readonly description: string;
}

/** A raw private key written in the setting itself: for development only, the caller should warn. */
export interface EnvKeyReference {
  readonly kind: "env";
  readonly setting: string;
  readonly privateKey: string;
  readonly developmentOnly: true;
  readonly description: string;
}

/** Where a signing key is, as a key setting names it. */
export type SignerReference = Pkcs11Reference | KeystoreReference | EnvKeyReference;

export interface SignerReferenceOptions {
  /** The PKCS11_MODULE setting: the module a PKCS#11 URI without module-path is loaded from. */
  readonly pkcs11Module?: string;
}

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const PATH_ATTRIBUTES = new Set(["token", "object", "type"]);
const QUERY_ATTRIBUTES = new Set(["module-path", "pin-source", "pin-value"]);

/** The path of a `file:` URI: `file:/p`, `file:p` or `file:///p` (RFC 8089; no host). */
function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  const rest = uri.slice("file:".length);
  if (!rest.startsWith("//")) return rest === "" ? undefined : rest;
  return rest.startsWith("///") ? rest.slice(2) : undefined;
}

function parsePkcs11(setting: string, value: string, options: SignerReferenceOptions): Pkcs11Reference {
  const fail = (reason: string): never => {
    throw new CustodyError(`${setting}: ${reason}`);
  };
  const parsed = parsePkcs11Uri(value);
  if (!parsed.ok) return fail(`not a valid PKCS#11 URI: ${parsed.reason}`);
  const { path, query } = parsed.uri;
  const unsupported = (name: string, use: string): never => {
    const quoted = quotedAttribute(name);
    return fail(
      quoted
        ? `the PKCS#11 URI attribute ${quoted} is not supported (use ${use})`
        : `the PKCS#11 URI has an attribute that is not RFC 7512's (use ${use}; ${UNENCODED_HINT})`,
    );
  };
  for (const name of path.keys()) if (!PATH_ATTRIBUTES.has(name)) unsupported(name, "token and object");
  for (const name of query.keys()) {
    if (!QUERY_ATTRIBUTES.has(name)) unsupported(name, "module-path, pin-source or pin-value");
  }
  const token = path.get("token") ?? fail("the PKCS#11 URI needs token=<token label>");
  const object = path.get("object") ?? fail("the PKCS#11 URI needs object=<key label>");
  if (token === "") fail("the PKCS#11 URI's token label is empty");
  if (object === "") fail("the PKCS#11 URI's object label is empty");
  const type = path.get("type");
  if (type !== undefined && type !== "private") {
    fail(`the PKCS#11 URI names a ${type} object; a signer needs type=private`);
  }
  const modulePath =
    query.get("module-path") ??
    options.pkcs11Module ??
    fail("no PKCS#11 module: add module-path=<path> to the URI or set PKCS11_MODULE");
  if (modulePath === "") fail("the PKCS#11 URI's module-path is empty");
  const pinSource = query.get("pin-source");
  const pinValue = query.get("pin-value");
  // RFC 7512 §2.3: pin-source and pin-value together make the URI ambiguous.
  if (pinSource !== undefined && pinValue !== undefined) fail("the PKCS#11 URI has both pin-source and pin-value");
  let pin: PinSource;
  if (pinSource !== undefined) {
    pin = {
      kind: "file",
      path: filePath(pinSource) ?? fail("pin-source must be a file: URI (pin-source=file:<path>)"),
    };
  } else if (pinValue !== undefined) {
    pin = { kind: "value", pin: pinValue };
  } else {
    return fail("the PKCS#11 URI needs pin-source=file:<path> or pin-value=<PIN>");
  }
  const description = formatPkcs11Path([
    ["token", token],
    ["object", object],
  ]);
  return { kind: "pkcs11", setting, token, object, modulePath, pin, description };
}

function parseKeystore(setting: string, value: string): KeystoreReference {
  const fail = (reason: string): never => {
    throw new CustodyError(`${setting}: ${reason}`);
  };
  const rest = value.slice("keystore:".length);
  const question = rest.indexOf("?");
  const decode = (text: string, what: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return fail(`the keystore reference's ${what} has an invalid percent-encoding`);
    }
  };
  const path = decode(question < 0 ? rest : rest.slice(0, question), "path");
  if (path === "") fail("the keystore reference needs a path (keystore:<path>?password-file=<path>)");
  let passwordFile: string | undefined;
  for (const attribute of question < 0 ? [] : rest.slice(question + 1).split("&")) {
    const equals = attribute.indexOf("=");
    const name = equals < 0 ? attribute : attribute.slice(0, equals);
    if (name !== "password-file") {
      fail(`the keystore reference's attribute "${name}" is not supported (use password-file=<path>)`);
    }
    if (passwordFile !== undefined) fail('the keystore reference repeats "password-file"');
    passwordFile = decode(equals < 0 ? "" : attribute.slice(equals + 1), "password-file");
  }
  if (!passwordFile) fail("the keystore reference needs ?password-file=<path>");
  return { kind: "keystore", setting, path, passwordFile: passwordFile!, description: `keystore:${path}` };
}

function parseEnvKey(setting: string, value: string): EnvKeyReference {
  const key = BigInt(value);
  if (key === 0n || key >= SECP256K1_ORDER) throw new CustodyError(`${setting}: the private key is out of range`);
  return {
    kind: "env",
    setting,
    privateKey: value.toLowerCase(),
    developmentOnly: true,
    description: `env:${setting} (a raw key, for development only)`,
  };
}

/**
 * The reference a key setting's value names: `pkcs11:token=…;object=…?pin-source=file:…` (RFC 7512),
 * `keystore:<path>?password-file=<path>`, or a raw 0x private key (development only). Throws CustodyError naming
 * `setting`, never quoting the value (it may hold a key or a PIN) beyond its scheme name.
 */
export function parseSignerReference(
  setting: string,
  value: string,
  options: SignerReferenceOptions = {},
): SignerReference {
  const text = value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === "pkcs11") return parsePkcs11(setting, text, options);
  if (scheme === "keystore") return parseKeystore(setting, text);
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return parseEnvKey(setting, text);
  if (scheme !== undefined && scheme.length <= 16) {
    throw new CustodyError(
      `${setting}: unknown signer scheme "${scheme}:" (use pkcs11:, keystore: or a 0x private key)`,
    );
  }
  throw new CustodyError(
    `${setting}: neither a signer reference (pkcs11:…, keystore:…) nor a 0x-prefixed 32-byte private key`,
  );
}
