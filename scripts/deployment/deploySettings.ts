import { getAddress, isAddress } from "ethers";

/** Who controls what a deployment creates: never guessed from the deployer's key. */
export interface DeployRoles {
  /** The owner account's cold admin: changes signers, upgrades wallets, allows delegatecall code. */
  readonly admin: string;
  /** Hot keys the owner account accepts for every wallet. */
  readonly walletSigners: readonly string[];
  /** Hot keys the SponsorPaymaster accepts. */
  readonly sponsorSigners: readonly string[];
  /** Keys the ENS resolver accepts answers from (none: names resolve only where the resolver derives them). */
  readonly ccipSigners: readonly string[];
  /** What is allowed but unsafe, for the operator to read before the transactions go out. */
  readonly warnings: readonly string[];
}

/** A deployment's settings are missing or unsafe; `problems` names each setting. */
export class DeploySettingsError extends Error {
  override readonly name = "DeploySettingsError";

  constructor(readonly problems: readonly string[]) {
    super(`refusing to deploy:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** One setting's addresses (comma-separated), with a problem for each entry that is none. */
function addresses(env: NodeJS.ProcessEnv, name: string, problems: string[]): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries.filter((entry) => !isAddress(entry))) problems.push(`${name}: ${entry} is no address`);
  return entries.filter((entry) => isAddress(entry)).map((entry) => getAddress(entry));
}

/**
 * The roles of `npm run deploy`, from IDWALLET_ADMIN, IDWALLET_WALLET_SIGNERS, IDWALLET_SPONSOR_SIGNERS and
 * CCIP_SIGNERS. The first three are required: a deployment that silently made the deployer's hot key the admin and
 * the only signer would put every wallet under one key sitting on the deploying machine. An admin that is the
 * deployer or one of the hot signers is warned about, not refused: the admin is part of every wallet's address, so a
 * deployment made that way must stay able to reach new chains.
 */
export function deployRoles(env: NodeJS.ProcessEnv, deployer: string): DeployRoles {
  const problems: string[] = [];
  const [admin, ...extraAdmins] = addresses(env, "IDWALLET_ADMIN", problems);
  const walletSigners = addresses(env, "IDWALLET_WALLET_SIGNERS", problems);
  const sponsorSigners = addresses(env, "IDWALLET_SPONSOR_SIGNERS", problems);
  const ccipSigners = addresses(env, "CCIP_SIGNERS", problems);
  const required: [string, readonly string[], string][] = [
    ["IDWALLET_ADMIN", admin ? [admin] : [], "the owner account's admin (a cold key or a multisig)"],
    ["IDWALLET_WALLET_SIGNERS", walletSigners, "the wallet signer addresses (the service's WALLET_SIGNER keys)"],
    ["IDWALLET_SPONSOR_SIGNERS", sponsorSigners, "the sponsor signer addresses (the service's SPONSOR_SIGNER keys)"],
  ];
  for (const [name, value, what] of required) {
    if (value.length === 0 && !problems.some((p) => p.startsWith(`${name}:`))) {
      problems.push(`${name} is not set: ${what}; the deployer's key is never used in its place`);
    }
  }
  if (extraAdmins.length > 0) problems.push("IDWALLET_ADMIN: one address (use a multisig for several people)");
  if (problems.length > 0) throw new DeploySettingsError(problems);
  const warnings: string[] = [];
  if (admin === getAddress(deployer))
    warnings.push("IDWALLET_ADMIN is the deployer's key: the admin should be kept cold");
  if ([...walletSigners, ...sponsorSigners].includes(admin!)) {
    warnings.push("IDWALLET_ADMIN is also a hot signer: a thief of that key could replace every other signer");
  }
  return { admin: admin!, walletSigners, sponsorSigners, ccipSigners, warnings };
}
