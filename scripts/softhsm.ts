/**
 * A SoftHSM2 token for key custody: creates the token's configuration and the token in a directory, and generates
 * secp256k1 keys in it (or imports given ones), printing each key's address and its signer reference.
 *
 *   npx ts-node scripts/softhsm.ts --dir <dir> --label <token> --pin-file <file> --so-pin <pin> --key <label> …
 *   npx ts-node scripts/softhsm.ts --dir <dir> --label <token> --pin-file <file> --add --import <label>=<key file> …
 *
 *   --pin-file <file>          the token's user PIN (the file a reference's pin-source names); or --pin <pin>
 *   --key <label>              generate a key inside the token (it never leaves it); repeatable
 *   --import <label>=<file>    import the 0x private key the file holds (a fixed address: tests, migrations)
 *   --add                      add the keys to the existing token instead of creating one
 *   --module <path>            the SoftHSM2 module (default /usr/lib/softhsm/libsofthsm2.so)
 *
 * The PINs are passed to softhsm2-util on its command line: this is a tool for development, tests and small setups.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  SOFTHSM2_MODULE,
  pkcs11KeyReference,
  type SoftHsmKey,
  type SoftHsmKeySpec,
  addSoftHsmKeys,
  createSoftHsmToken,
  writeSoftHsmConfig,
} from "./softhsm/softHsmToken";

export * from "./softhsm/softHsmToken";

function keySpecs(generate: readonly string[], imports: readonly string[]): SoftHsmKeySpec[] {
  return [
    ...generate.map((label) => ({ label })),
    ...imports.map((spec) => {
      const equals = spec.indexOf("=");
      if (equals <= 0) throw new Error(`--import takes <label>=<key file>, not "${spec}"`);
      const privateKey = readFileSync(spec.slice(equals + 1), "utf8").trim();
      return { label: spec.slice(0, equals), privateKey };
    }),
  ];
}

const USAGE = `Usage:
  npx ts-node scripts/softhsm.ts --dir <dir> --label <token> --pin-file <file> --so-pin <pin> (--key <label> | --import <label>=<key file>)…
  npx ts-node scripts/softhsm.ts --dir <dir> --label <token> --pin-file <file> --add (--key <label> | --import <label>=<key file>)…
Creates a SoftHSM2 token in <dir> (or adds to it), generating or importing secp256k1 keys; prints SOFTHSM2_CONF and,
for each key, its address and signer reference. --pin <pin> instead of --pin-file; --module <path> for another
SoftHSM2 library.`;

/** The user PIN from --pin-file (less a trailing newline) or --pin. */
function pinOf(values: { pin?: string; "pin-file"?: string }): string | undefined {
  if (values.pin !== undefined && values["pin-file"] !== undefined)
    throw new Error("--pin and --pin-file exclude each other");
  if (values["pin-file"] === undefined) return values.pin;
  return readFileSync(values["pin-file"], "utf8").replace(/\r?\n$/, "");
}

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: "boolean", default: false },
      dir: { type: "string" },
      label: { type: "string" },
      pin: { type: "string" },
      "pin-file": { type: "string" },
      "so-pin": { type: "string" },
      key: { type: "string", multiple: true, default: [] },
      import: { type: "string", multiple: true, default: [] },
      add: { type: "boolean", default: false },
      module: { type: "string", default: SOFTHSM2_MODULE },
    },
  });
  if (values.help) return void console.log(USAGE);
  const { dir, label } = values;
  const pin = pinOf(values);
  if (!dir || !label || !pin) throw new Error("--dir, --label and --pin-file (or --pin) are required");
  const keys = keySpecs(values.key, values.import);
  if (keys.length === 0 && values.add) throw new Error("--add needs --key or --import");
  let configPath: string;
  let added: readonly SoftHsmKey[];
  if (values.add) {
    configPath = writeSoftHsmConfig(dir);
    process.env.SOFTHSM2_CONF = configPath;
    added = addSoftHsmKeys({ label, pin, keys, modulePath: values.module });
  } else {
    if (!values["so-pin"]) throw new Error("--so-pin is required to create a token");
    const token = createSoftHsmToken({ dir, label, pin, soPin: values["so-pin"], keys, modulePath: values.module });
    configPath = token.configPath;
    added = token.keys;
  }
  console.log(`SOFTHSM2_CONF=${configPath}`);
  for (const key of added) {
    const reference = pkcs11KeyReference({
      token: label,
      object: key.label,
      modulePath: values.module,
      // Given the PIN itself, a placeholder for the file it should be kept in.
      pinFile: values["pin-file"] ?? "/path/to/pin-file",
    });
    console.log(`${key.label}: ${key.address} (${key.generated ? "generated" : "imported"}) ${reference}`);
  }
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
