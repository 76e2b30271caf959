import fc from "fast-check";

/** Bytes as 0x-hex. */
export const hexBytes = (minLength: number, maxLength = minLength): fc.Arbitrary<string> =>
  fc.uint8Array({ minLength, maxLength }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);

/** An address, in any case, or one that only looks like one. */
export const addressLike: fc.Arbitrary<string> = fc.oneof(
  hexBytes(20),
  hexBytes(20).map((a) => a.toUpperCase().replace("0X", "0x")),
  fc.constantFrom(
    "0x0000000000000000000000000000000000000000",
    "0x0000000000000000000000000000000000000001",
    "0x000000000000000000000000000000000000dEaD",
    // A checksummed-looking address with a wrong checksum.
    "0x00000000000000000000000000000000000000aA",
    "0x12",
    "0x",
    "0xZZ00000000000000000000000000000000000000",
  ),
  hexBytes(19, 21),
);

/** Any code point, lone surrogate halves included (JSON.stringify escapes them). */
const anyUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
);

/** `text` with each lone surrogate half replaced, so it can be %-encoded. */
export const wellFormed = (text: string): string =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "?");

/** Short text of any characters. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> => fc.string({ unit: anyUnit, maxLength });

/** A JSON value of any shape. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });

/** A field value: mostly `valid`, sometimes anything at all (wrong types, nulls, huge numbers, odd text). */
export const field = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: anyText() });

/** A valid-shaped body: each field of `model` present or not, plus now and then unknown or prototype-named keys. */
export function shapedBody(model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const extra = fc.dictionary(fc.constantFrom("__proto__", "constructor", "toString", "extra", ""), anyJson, {
    maxKeys: 2,
  });
  return fc
    .tuple(fc.record(model, { requiredKeys: [] }), fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, extra))
    .map(([body, more]) => {
      const merged: Record<string, unknown> = {};
      // defineProperty: a "__proto__" key stays a key (as JSON.parse makes it), not the prototype.
      for (const [key, value] of [...Object.entries(more), ...Object.entries(body)]) {
        Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return merged;
    });
}

/** A JSON text that does not parse. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("{", "}", "[", "{'a':1}", '{"a":}', '{"a" 1}', "{,}", "[1,]", "nul", "tru", "NaN", "undefined"),
  fc.constantFrom('{"a":"\\x41"}', '{"a":"\\u12"}', "\u0000", "\ufeff{}", '{"a":1}{"b":2}', "//\n{}", '{"a":1e999999}'),
  anyJson.map((value) => JSON.stringify(value) ?? "null").map((text) => text.slice(0, Math.max(1, text.length - 1))),
);

/** A raw request body: malformed JSON, random bytes, random text, any JSON, or nothing. */
export const rawBody: fc.Arbitrary<Buffer | string | undefined> = fc.oneof(
  malformedJson,
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  anyText(200),
  anyJson.map((value) => JSON.stringify(value)),
  fc.constant(""),
  fc.constant(undefined),
);

/** Content-Type header values: the right ones with odd parameters and charsets, wrong ones, nonsense. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=UTF-8",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/json; charset=utf-16le",
    "application/json; charset=us-ascii",
    "application/json; charset=ebcdic",
    'application/json; charset="utf-8"',
    "application/json;;;",
    "application/json; boundary=x",
    "APPLICATION/JSON",
    "application/problem+json",
    "application/vnd.api+json",
    "text/plain",
    "text/plain; charset=utf-8",
    "text/plain; charset=iso-8859-1",
    "text/html",
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=utf-16",
    "multipart/form-data",
    "multipart/form-data; boundary=----x",
    "application/octet-stream",
    "application/xml",
    "*/*",
    "application/*",
    "json",
    "",
    ";",
    "/",
    "application/",
  ),
  anyText(60).map((text) => text.replace(/[\r\n\0]/g, "")),
);

/** A header value: visible latin1 text and spaces (what the wire carries; CR, LF and NUL are not header text). */
export const headerValue = (maxLength = 120): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
      fc.constant("\t"),
    ),
    maxLength,
  });

/** base64url text (the alphabet of JWT segments). */
const base64url = (maxLength: number) =>
  fc.string({
    unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
    maxLength,
  });

/** A JWT-shaped text: three base64url segments, or a header and payload of random JSON with any signature. */
export const jwtLike: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(base64url(60), base64url(200), base64url(60)).map((parts) => parts.join(".")),
  fc
    .tuple(
      fc.oneof(anyJson, fc.constantFrom({ alg: "none" }, { alg: "HS256", typ: "JWT" }, { alg: "RS256" }, { alg: "" })),
      anyJson,
      base64url(60),
    )
    .map(([header, payload, sig]) =>
      [header, payload]
        .map((part) => Buffer.from(JSON.stringify(part)).toString("base64url"))
        .concat(sig)
        .join("."),
    ),
);

/** Authorization header values that do not authenticate. */
export const badAuthorization: fc.Arbitrary<string> = fc.oneof(
  headerValue(),
  headerValue().map((v) => `Bearer ${v}`),
  jwtLike.map((t) => `Bearer ${t}`),
  jwtLike.map((t) => `bearer ${t}`),
  jwtLike.map((t) => `Bearer  ${t}`),
  base64url(300).map((t) => `Bearer ${t}==`),
  headerValue().map((v) => `Basic ${Buffer.from(v, "latin1").toString("base64")}`),
  fc.constantFrom("Bearer", "Bearer ", "Basic", "Basic ", "Basic :", "Basic Og==", "Negotiate x", "Bearer a b"),
);

/** Idempotency-Key values, mostly not the 1–255 visible ASCII characters the API takes. */
export const idempotencyKey: fc.Arbitrary<string> = fc.oneof(
  headerValue(300),
  fc.constantFrom("", " ", "k", "x".repeat(255), "x".repeat(256), "k\t1", "ü"),
);

/** Extra headers: random names and values, odd X-Request-Ids, headers the service reads. */
export const extraHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom("X-Request-Id", "X-Forwarded-For", "Origin", "Accept", "Accept-Charset", "Cookie"),
      headerValue(),
    ),
    fc.tuple(fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,30}$/), headerValue()),
    fc.tuple(fc.constantFrom("Expect"), fc.constantFrom("100-continue", "x")),
    fc.tuple(
      fc.constantFrom("Content-Encoding"),
      fc.constantFrom("identity", "x-unknown", "gzip, gzip", "compress", "gzip", "deflate", "br"),
    ),
  ),
  { maxLength: 4 },
);

/** A path segment: well-formed %-escapes of any text, dot segments, odd names, very long ones. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "..",
    ".",
    "%2e%2e",
    "%2E%2E%2F..%2F..",
    "..%2F..%2Fetc%2Fpasswd",
    "%2F",
    "%00",
    "%20",
    "null",
    "undefined",
    "__proto__",
    "constructor",
    "-1",
    "1e309",
    "0x",
    "localhost",
    "LOCALHOST",
    "eth",
    "gor",
    "base",
  ),
  anyText(40).map((text) => encodeURIComponent(wellFormed(text))),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,60}$/),
  hexBytes(0, 40),
  fc.uuid(),
  fc.integer({ min: 1000, max: 8000 }).map((n) => "a".repeat(n)),
);

/** A path segment that no URI decoder accepts: a malformed %-escape. */
export const malformedEscape: fc.Arbitrary<string> = fc.constantFrom(
  "%",
  "%zz",
  "%e0%a4%a",
  "%C0%AF%",
  "a%2",
  "%%",
  "%u0041",
);

/** A path segment sent as raw bytes: unicode, spaces and controls that a client should have %-encoded. */
export const rawSegment: fc.Arbitrary<string> = fc
  .string({ unit: "binary", minLength: 1, maxLength: 20 })
  .map((text) => text.replace(/[/?#\r\n]/g, "_"));

/** A query string (without `?`): known and random keys, repeated keys, %-escapes good and bad. */
export const queryString: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom("wait", "limit", "offset", "chain", "cursor", "__proto__", "constructor", "", "a[b]", "a.b"),
        fc.stringMatching(/^[a-z]{1,8}$/),
      ),
      fc.oneof(
        fc.constantFrom(
          "true",
          "false",
          "1",
          "0",
          "-1",
          "1e3",
          "NaN",
          "Infinity",
          "99999999999999999999",
          "",
          "localhost",
        ),
        anyText(30).map((text) => encodeURIComponent(wellFormed(text))),
        malformedEscape,
      ),
      fc.boolean(),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => pairs.map(([key, value, bare]) => (bare && value === "" ? key : `${key}=${value}`)).join("&"));
