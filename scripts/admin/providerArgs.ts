import { readFileSync } from "node:fs";
import { jwksUrlRefusal } from "../../gateway/identity/jwksUrl";
import { type ProviderVerification, registrationVerification } from "../../gateway/identity/providerRegistration";
import { UsageError, issues } from "./usageError";

/** The option names of `providers add`, with their parseArgs types. */
export const PROVIDER_OPTIONS = {
  "hs256-secret-file": { type: "string" },
  "public-key-file": { type: "string" },
  alg: { type: "string" },
  "jwks-url": { type: "string" },
  issuer: { type: "string" },
  audience: { type: "string" },
  "allow-insecure": { type: "boolean" },
} as const;

/** Options of `providers add`. */
export interface ProviderOptions {
  "hs256-secret-file"?: string;
  "public-key-file"?: string;
  alg?: string;
  "jwks-url"?: string;
  issuer?: string;
  audience?: string;
  "allow-insecure"?: boolean;
}

/**
 * The verification of `providers add`: exactly one key source (secrets and keys read from files), an issuer and an
 * audience whatever the key (one key may sign for many tenants: Firebase's key set signs every project's tokens), and
 * a key set over https (http only with --allow-insecure, to a loopback host).
 */
export function providerVerification(values: ProviderOptions): ProviderVerification {
  const sources = [values["hs256-secret-file"], values["public-key-file"], values["jwks-url"]].filter(
    (v) => v !== undefined,
  );
  if (sources.length !== 1)
    throw new UsageError("give exactly one of --hs256-secret-file, --public-key-file, --jwks-url");
  for (const [option, claim] of [
    ["issuer", "iss"],
    ["audience", "aud"],
  ] as const) {
    if (!values[option]?.trim())
      throw new UsageError(
        `--${option} is required: the ${claim} every proof of this provider must carry (without it, a token the same ` +
          "key signed for another tenant, such as another project of a shared identity service, would pass)",
      );
  }
  const allowInsecure = values["allow-insecure"] ?? false;
  if (allowInsecure && values["jwks-url"] === undefined)
    throw new UsageError("--allow-insecure applies only to --jwks-url");
  if (values["jwks-url"] !== undefined) {
    const refusal = jwksUrlRefusal(values["jwks-url"], { allowInsecure });
    if (refusal) throw new UsageError(refusal);
  }
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8").trim();
    } catch {
      throw new UsageError(`cannot read ${file}`);
    }
  };
  const alg = values.alg?.toUpperCase();
  if (values["public-key-file"] !== undefined && alg !== "RS256" && alg !== "ES256") {
    throw new UsageError("--public-key-file needs --alg RS256 or ES256");
  }
  const hs256Secret = values["hs256-secret-file"] === undefined ? undefined : read(values["hs256-secret-file"]);
  // A public key is public: taken as an HS256 secret, it would let anyone sign proofs for every id of the provider.
  if (hs256Secret?.includes("-----BEGIN")) {
    throw new UsageError("--hs256-secret-file holds a PEM key; a public key goes in --public-key-file with --alg");
  }
  const key =
    hs256Secret !== undefined
      ? { kind: "hs256" as const, secret: hs256Secret }
      : values["public-key-file"]
        ? {
            kind: alg === "RS256" ? ("rs256" as const) : ("es256" as const),
            publicKeyPem: read(values["public-key-file"]),
          }
        : { kind: "jwks" as const, url: values["jwks-url"]! };
  const parsed = registrationVerification(allowInsecure).safeParse({
    key,
    issuer: values.issuer,
    audience: values.audience,
  });
  if (!parsed.success) throw new UsageError(issues(parsed.error));
  return parsed.data;
}
