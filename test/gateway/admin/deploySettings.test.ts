import { expect } from "chai";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { DeploySettingsError, deployRoles } from "../../../scripts/deployment/deploySettings";

const DEPLOYER = "0x00000000000000000000000000000000000000d1";
const ADMIN = "0x00000000000000000000000000000000000000A0";
const WALLET = "0x00000000000000000000000000000000000000b1";
const SPONSOR = "0x00000000000000000000000000000000000000C1";
const complete = { IDWALLET_ADMIN: ADMIN, IDWALLET_WALLET_SIGNERS: WALLET, IDWALLET_SPONSOR_SIGNERS: SPONSOR };

/** The problems deployRoles refuses `env` for, or [] if it deploys. */
function refusal(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    deployRoles(env, DEPLOYER);
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(DeploySettingsError);
    return (error as DeploySettingsError).problems;
  }
}

describe("npm run deploy: the roles it deploys under", () => {
  it("refuses to deploy without an admin, wallet signers or sponsor signers, naming each, and never uses the deployer", () => {
    expect(refusal({})).to.deep.equal([
      "IDWALLET_ADMIN is not set: the owner account's admin (a cold key or a multisig); the deployer's key is never used in its place",
      "IDWALLET_WALLET_SIGNERS is not set: the wallet signer addresses (the service's WALLET_SIGNER keys); the deployer's key is never used in its place",
      "IDWALLET_SPONSOR_SIGNERS is not set: the sponsor signer addresses (the service's SPONSOR_SIGNER keys); the deployer's key is never used in its place",
    ]);
    expect(refusal({ ...complete, IDWALLET_SPONSOR_SIGNERS: " , " })).to.have.length(1);
    expect(refusal({ ...complete, IDWALLET_WALLET_SIGNERS: "" })[0]).to.match(/^IDWALLET_WALLET_SIGNERS is not set/);
  });

  it("refuses entries that are no address and a list of admins, and says which", () => {
    expect(refusal({ ...complete, IDWALLET_WALLET_SIGNERS: `${WALLET},0x12` })).to.deep.equal([
      "IDWALLET_WALLET_SIGNERS: 0x12 is no address",
    ]);
    expect(refusal({ ...complete, IDWALLET_ADMIN: `${ADMIN},${WALLET}` })).to.deep.equal([
      "IDWALLET_ADMIN: one address (use a multisig for several people)",
    ]);
  });

  it("deploys under the named roles, checksummed, and warns when the admin is the deployer or a hot signer", () => {
    const roles = deployRoles({ ...complete, CCIP_SIGNERS: `${WALLET}, ${SPONSOR}` }, DEPLOYER);
    expect(roles).to.deep.equal({
      admin: "0x00000000000000000000000000000000000000A0",
      walletSigners: ["0x00000000000000000000000000000000000000B1"],
      sponsorSigners: ["0x00000000000000000000000000000000000000c1"],
      ccipSigners: ["0x00000000000000000000000000000000000000B1", "0x00000000000000000000000000000000000000c1"],
      warnings: [],
    });
    expect(deployRoles({ ...complete, IDWALLET_ADMIN: DEPLOYER }, DEPLOYER).warnings).to.deep.equal([
      "IDWALLET_ADMIN is the deployer's key: the admin should be kept cold",
    ]);
    expect(deployRoles({ ...complete, IDWALLET_WALLET_SIGNERS: ADMIN }, DEPLOYER).warnings).to.deep.equal([
      "IDWALLET_ADMIN is also a hot signer: a thief of that key could replace every other signer",
    ]);
  });

  it("is what `npm run deploy` checks before any transaction: it exits 1 with the message", function () {
    this.timeout(120_000);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(IDWALLET_|CCIP_SIGNERS$|ENS_DOMAIN)/.test(name)),
    );
    const run = spawnSync("npx", ["hardhat", "run", "--no-compile", "scripts/deploy.ts"], {
      cwd: path.join(__dirname, "..", "..", ".."),
      env: { ...env, IDWALLET_ADMIN: ADMIN },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).to.equal(1);
    expect(run.stderr).to.include("refusing to deploy:\n  - IDWALLET_WALLET_SIGNERS is not set");
    expect(run.stdout).not.to.include("deployed");
  });
});
