import { expect } from "chai";
import {
  CustodyError,
  parseSignerReference,
  type SignerReference,
  type SignerReferenceOptions,
} from "../../../gateway/custody";

const MODULE = "/opt/hsm/libvendor.so";
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/** RELAYER_SIGNER_KEY=`value`, with PKCS11_MODULE set unless told otherwise. */
const parse = (value: string, options: SignerReferenceOptions = { pkcs11Module: MODULE }): SignerReference =>
  parseSignerReference("RELAYER_SIGNER_KEY", value, options);

/** The CustodyError message parsing `value` throws (fails the test if it parses). */
function refusal(value: string, options?: SignerReferenceOptions): string {
  try {
    parse(value, options);
  } catch (error) {
    expect(error).to.be.instanceOf(CustodyError);
    return (error as Error).message;
  }
  throw new Error(`expected ${value} to be refused`);
}

describe("custody: signer references", () => {
  describe("pkcs11: (RFC 7512)", () => {
    it("reads token, object, module-path and a PIN file", () => {
      expect(
        parse(
          "pkcs11:token=idwallet;object=relayer?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=file:/run/pin",
        ),
      ).to.deep.equal({
        kind: "pkcs11",
        setting: "RELAYER_SIGNER_KEY",
        token: "idwallet",
        object: "relayer",
        modulePath: "/usr/lib/softhsm/libsofthsm2.so",
        pin: { kind: "file", path: "/run/pin" },
        description: "pkcs11:token=idwallet;object=relayer",
      });
    });

    it("takes the module from PKCS11_MODULE when the URI names none, and a PIN written in the URI", () => {
      const reference = parse("pkcs11:object=relayer;token=idwallet?pin-value=1234");
      expect(reference).to.include({ modulePath: MODULE, token: "idwallet", object: "relayer" });
      expect(reference).to.have.deep.property("pin", { kind: "value", pin: "1234" });
    });

    it("decodes percent-encoded values (UTF-8), and re-encodes them in the description", () => {
      const reference = parse(
        "pkcs11:token=Caf%C3%A9%20keys;object=relayer%3B1%3Fa%26b?pin-source=file:///etc/pins/caf%C3%A9",
      );
      expect(reference).to.include({ token: "Café keys", object: "relayer;1?a&b" });
      expect(reference).to.have.deep.property("pin", { kind: "file", path: "/etc/pins/café" });
      expect(reference.description).to.equal("pkcs11:token=Caf%C3%A9%20keys;object=relayer%3B1%3Fa%26b");
    });

    it("accepts type=private and a scheme name in capitals", () => {
      expect(parse("PKCS11:token=t;object=o;type=private?pin-value=1")).to.include({ kind: "pkcs11", object: "o" });
    });

    it("never puts the PIN in the description", () => {
      expect(parse("pkcs11:token=t;object=o?pin-value=s3cret-PIN").description).to.not.include("s3cret");
    });

    const refused: ReadonlyArray<readonly [string, string, SignerReferenceOptions?]> = [
      ["pkcs11:object=relayer?pin-value=1", "RELAYER_SIGNER_KEY: the PKCS#11 URI needs token=<token label>"],
      ["pkcs11:token=idwallet?pin-value=1", "RELAYER_SIGNER_KEY: the PKCS#11 URI needs object=<key label>"],
      ["pkcs11:token=;object=o?pin-value=1", "RELAYER_SIGNER_KEY: the PKCS#11 URI's token label is empty"],
      ["pkcs11:token=t;object=?pin-value=1", "RELAYER_SIGNER_KEY: the PKCS#11 URI's object label is empty"],
      [
        "pkcs11:token=t;object=o",
        "RELAYER_SIGNER_KEY: the PKCS#11 URI needs pin-source=file:<path> or pin-value=<PIN>",
      ],
      [
        "pkcs11:token=t;object=o?pin-value=1",
        "RELAYER_SIGNER_KEY: no PKCS#11 module: add module-path=<path> to the URI or set PKCS11_MODULE",
        {},
      ],
      [
        "pkcs11:token=t;object=o?pin-value=1&pin-source=file:/p",
        "RELAYER_SIGNER_KEY: the PKCS#11 URI has both pin-source and pin-value",
      ],
      [
        "pkcs11:token=t;object=o?pin-source=|/usr/bin/getpin",
        "RELAYER_SIGNER_KEY: pin-source must be a file: URI (pin-source=file:<path>)",
      ],
      [
        "pkcs11:token=t;object=o?pin-source=file://host/p",
        "RELAYER_SIGNER_KEY: pin-source must be a file: URI (pin-source=file:<path>)",
      ],
      [
        "pkcs11:token=t;token=u;object=o?pin-value=1",
        'RELAYER_SIGNER_KEY: not a valid PKCS#11 URI: the attribute "token" is repeated',
      ],
      [
        "pkcs11:token=t;;object=o?pin-value=1",
        'RELAYER_SIGNER_KEY: not a valid PKCS#11 URI: an empty path attribute (doubled ";")',
      ],
      [
        "pkcs11:token=t;object?pin-value=1",
        'RELAYER_SIGNER_KEY: not a valid PKCS#11 URI: the path attribute "object" has no value (object=…)',
      ],
      [
        "pkcs11:token=t%ZZ;object=o?pin-value=1",
        'RELAYER_SIGNER_KEY: not a valid PKCS#11 URI: the attribute "token" has an invalid percent-encoding',
      ],
      [
        "pkcs11:token=t;object=o;id=%01?pin-value=1",
        'RELAYER_SIGNER_KEY: the PKCS#11 URI attribute "id" is not supported (use token and object)',
      ],
      [
        "pkcs11:token=t;object=o?module-name=softhsm2&pin-value=1",
        'RELAYER_SIGNER_KEY: the PKCS#11 URI attribute "module-name" is not supported (use module-path, pin-source or pin-value)',
      ],
      [
        "pkcs11:token=t;object=o;type=cert?pin-value=1",
        "RELAYER_SIGNER_KEY: the PKCS#11 URI names a cert object; a signer needs type=private",
      ],
    ];
    for (const [value, message, options] of refused) {
      it(`refuses ${value}`, () => expect(refusal(value, options)).to.equal(message));
    }

    it("never quotes a PIN in a refusal", () => {
      const message = refusal("pkcs11:token=t;object=o;id=1?pin-value=s3cret-PIN");
      expect(message).to.not.include("s3cret");
    });

    it("never quotes a piece of a PIN whose & or ; was not percent-encoded (it reads as an attribute's name)", () => {
      for (const value of [
        "pkcs11:token=t;object=o?pin-value=4711&s3cretTail",
        "pkcs11:token=t;object=o?pin-value=4711&s3cretTail=x",
        "pkcs11:token=t;object=o?pin-value=4711&s3cretTail=x&s3cretTail=y",
        "pkcs11:token=t;object=o;pin-value=4711;s3cretTail?module-path=/m",
      ]) {
        const message = refusal(value)!;
        expect(message, value).to.match(/^RELAYER_SIGNER_KEY: /);
        expect(message, value).to.not.include("s3cret").and.not.include("4711");
      }
      expect(refusal("pkcs11:token=t;object=o?pin-value=4711&s3cretTail")).to.equal(
        "RELAYER_SIGNER_KEY: not a valid PKCS#11 URI: a query attribute has no value (a & or ; in a value is written %26 or %3B)",
      );
    });
  });

  describe("keystore:", () => {
    it("reads the keystore path and its password file", () => {
      expect(parse("keystore:/etc/idwallet/relayer.json?password-file=/run/secrets/relayer")).to.deep.equal({
        kind: "keystore",
        setting: "RELAYER_SIGNER_KEY",
        path: "/etc/idwallet/relayer.json",
        passwordFile: "/run/secrets/relayer",
        description: "keystore:/etc/idwallet/relayer.json",
      });
    });

    it("decodes percent-encoding in both paths", () => {
      expect(parse("keystore:/keys/my%20key.json?password-file=/run/a%3Fb")).to.include({
        path: "/keys/my key.json",
        passwordFile: "/run/a?b",
      });
    });

    const refused: ReadonlyArray<readonly [string, string]> = [
      ["keystore:/k.json", "RELAYER_SIGNER_KEY: the keystore reference needs ?password-file=<path>"],
      ["keystore:/k.json?password-file=", "RELAYER_SIGNER_KEY: the keystore reference needs ?password-file=<path>"],
      [
        "keystore:?password-file=/p",
        "RELAYER_SIGNER_KEY: the keystore reference needs a path (keystore:<path>?password-file=<path>)",
      ],
      [
        "keystore:/k.json?password=hunter2",
        'RELAYER_SIGNER_KEY: the keystore reference\'s attribute "password" is not supported (use password-file=<path>)',
      ],
      [
        "keystore:/k.json?password-file=/a&password-file=/b",
        'RELAYER_SIGNER_KEY: the keystore reference repeats "password-file"',
      ],
      [
        "keystore:/k%G0.json?password-file=/p",
        "RELAYER_SIGNER_KEY: the keystore reference's path has an invalid percent-encoding",
      ],
    ];
    for (const [value, message] of refused) {
      it(`refuses ${value}`, () => expect(refusal(value)).to.equal(message));
    }
  });

  describe("a raw key (development only)", () => {
    it("is an env reference that says it is for development, without the key in its description", () => {
      const reference = parse(KEY.toUpperCase().replace("0X", "0x"));
      expect(reference).to.deep.equal({
        kind: "env",
        setting: "RELAYER_SIGNER_KEY",
        privateKey: KEY,
        developmentOnly: true,
        description: "env:RELAYER_SIGNER_KEY (a raw key, for development only)",
      });
    });

    it("refuses a key out of the curve's range", () => {
      expect(refusal(`0x${"ff".repeat(32)}`)).to.equal("RELAYER_SIGNER_KEY: the private key is out of range");
      expect(refusal(`0x${"00".repeat(32)}`)).to.equal("RELAYER_SIGNER_KEY: the private key is out of range");
    });

    it("refuses a key of the wrong length without quoting it", () => {
      const message = refusal(KEY.slice(0, -1));
      expect(message).to.equal(
        "RELAYER_SIGNER_KEY: neither a signer reference (pkcs11:…, keystore:…) nor a 0x-prefixed 32-byte private key",
      );
      expect(message).to.not.include(KEY.slice(2, 12));
    });
  });

  it("refuses an unknown scheme, naming it", () => {
    expect(refusal("vault:secret/relayer")).to.equal(
      'RELAYER_SIGNER_KEY: unknown signer scheme "vault:" (use pkcs11:, keystore: or a 0x private key)',
    );
  });
});
