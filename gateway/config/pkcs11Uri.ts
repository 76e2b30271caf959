// RFC 7512, the PKCS#11 URI: `pkcs11:` then path attributes separated by `;`, then optionally `?` and query
// attributes separated by `&`; each `name=value` with the value percent-encoded (UTF-8 for labels).

/** A PKCS#11 URI's attributes, their values percent-decoded. */
export interface Pkcs11Uri {
  readonly path: ReadonlyMap<string, string>;
  readonly query: ReadonlyMap<string, string>;
}

/** A parsed URI, or why the text is not one (naming attributes, never quoting values: a value may be a PIN). */
export type Pkcs11UriResult =
  { readonly ok: true; readonly uri: Pkcs11Uri } | { readonly ok: false; readonly reason: string };

const SCHEME = "pkcs11:";

/** RFC 7512 §2.3's attribute names. */
const RFC7512_NAMES = new Set([
  "id",
  "library-description",
  "library-manufacturer",
  "library-version",
  "manufacturer",
  "model",
  "object",
  "serial",
  "slot-description",
  "slot-id",
  "slot-manufacturer",
  "token",
  "type",
  "module-name",
  "module-path",
  "pin-source",
  "pin-value",
]);

/** What a reason calls an attribute, the hint for the one mistake that makes unknown names. */
export const UNENCODED_HINT = "a & or ; in a value is written %26 or %3B";

/**
 * `"name"` for an RFC 7512 attribute name, else undefined: any other name is not quoted, since it may be the tail of a
 * PIN whose `&` or `;` was not percent-encoded.
 */
export const quotedAttribute = (name: string): string | undefined =>
  RFC7512_NAMES.has(name) ? `"${name}"` : undefined;

/** Splits `a=1;b=2` into a map; refuses an empty or nameless attribute, a repeated one, a bad escape. */
function attributes(text: string, separator: string, part: string): Map<string, string> | string {
  const found = new Map<string, string>();
  if (text === "") return found;
  for (const attribute of text.split(separator)) {
    const equals = attribute.indexOf("=");
    const name = equals < 0 ? attribute : attribute.slice(0, equals);
    if (!/^[a-z][a-z0-9-]*$/i.test(name)) {
      return attribute === ""
        ? `an empty ${part} attribute (doubled "${separator}")`
        : `a ${part} attribute without a name`;
    }
    const quoted = quotedAttribute(name);
    if (equals < 0) {
      return quoted
        ? `the ${part} attribute ${quoted} has no value (${name}=…)`
        : `a ${part} attribute has no value (${UNENCODED_HINT})`;
    }
    // RFC 7512 §2.3: an attribute must not be repeated.
    if (found.has(name))
      return quoted ? `the attribute ${quoted} is repeated` : `an attribute is repeated (${UNENCODED_HINT})`;
    try {
      found.set(name, decodeURIComponent(attribute.slice(equals + 1)));
    } catch {
      return `${quoted ? `the attribute ${quoted}` : "an attribute"} has an invalid percent-encoding`;
    }
  }
  return found;
}

/** Parses a PKCS#11 URI (the scheme name is case-insensitive, as every URI scheme's). */
export function parsePkcs11Uri(text: string): Pkcs11UriResult {
  if (text.slice(0, SCHEME.length).toLowerCase() !== SCHEME) return { ok: false, reason: "not a pkcs11: URI" };
  const rest = text.slice(SCHEME.length);
  const question = rest.indexOf("?");
  const path = attributes(question < 0 ? rest : rest.slice(0, question), ";", "path");
  if (typeof path === "string") return { ok: false, reason: path };
  const query = attributes(question < 0 ? "" : rest.slice(question + 1), "&", "query");
  if (typeof query === "string") return { ok: false, reason: query };
  const both = [...path.keys()].find((name) => query.has(name));
  if (both) {
    const quoted = quotedAttribute(both);
    return {
      ok: false,
      reason: quoted ? `the attribute ${quoted} is repeated` : `an attribute is repeated (${UNENCODED_HINT})`,
    };
  }
  return { ok: true, uri: { path, query } };
}

/** `pkcs11:` and the given path attributes, percent-encoded: the canonical spelling of an object's location. */
export function formatPkcs11Path(attributes: ReadonlyArray<readonly [string, string]>): string {
  return `${SCHEME}${attributes.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join(";")}`;
}
