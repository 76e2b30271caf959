/**
 * Moves wallets to a new implementation on one chain: `npm run upgrade-wallets -- --network <chain>`.
 * One OwnerAccount.upgradeWallets transaction per UPGRADE_BATCH_SIZE wallets, sent by the owner account's admin
 * (DEPLOYER_PRIVATE_KEY) or, when the deployer is not the admin, printed for the admin to send.
 * Settings (environment, see .env.example): UPGRADE_IMPLEMENTATION, UPGRADE_USER_IDS_FILE (one user id a line),
 * UPGRADE_ACCOUNT_TYPE (kernel | base), UPGRADE_CALL_DATA, UPGRADE_BATCH_SIZE; the contracts from
 * CONTRACT_OWNER_ACCOUNT and CONTRACT_KERNEL_FACTORY / CONTRACT_BASE_FACTORY, else deployments/<chain>.json.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import hre, { ethers } from "hardhat";
import { ACCOUNT_TYPES, type AccountType } from "../gateway/identity/walletAddress";
import { planWalletUpgrade, sendWalletUpgrade } from "./deployment/upgradeWallets";

/** A setting from the environment, or a clear stop naming it. */
function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** The chain's contract addresses: the service's settings, else what `npm run deploy` wrote. */
function contracts(network: string): { ownerAccount?: string; kernelFactory?: string; baseFactory?: string } {
  const file = path.join(__dirname, "..", "deployments", `${network}.json`);
  const deployed = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { contracts: Record<string, string> }).contracts
    : {};
  return {
    ownerAccount: process.env.CONTRACT_OWNER_ACCOUNT ?? deployed.ownerAccount,
    kernelFactory: process.env.CONTRACT_KERNEL_FACTORY ?? deployed.kernelFactory,
    baseFactory: process.env.CONTRACT_BASE_FACTORY ?? deployed.baseFactory,
  };
}

async function main(): Promise<void> {
  const [deployer] = await ethers.getSigners();
  if (!deployer) throw new Error("no account: set DEPLOYER_PRIVATE_KEY");
  const type = setting("UPGRADE_ACCOUNT_TYPE", "kernel") as AccountType;
  if (!ACCOUNT_TYPES.includes(type)) throw new Error(`UPGRADE_ACCOUNT_TYPE must be one of ${ACCOUNT_TYPES.join(", ")}`);
  const known = contracts(hre.network.name);
  const ownerAccount = setting("CONTRACT_OWNER_ACCOUNT", known.ownerAccount);
  const factory =
    type === "kernel"
      ? setting("CONTRACT_KERNEL_FACTORY", known.kernelFactory)
      : setting("CONTRACT_BASE_FACTORY", known.baseFactory);
  const userIds = readFileSync(setting("UPGRADE_USER_IDS_FILE"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));

  const plan = await planWalletUpgrade(ethers.provider, {
    factory,
    ownerAccount,
    type,
    implementation: setting("UPGRADE_IMPLEMENTATION"),
    userIds,
    data: process.env.UPGRADE_CALL_DATA,
    batchSize: process.env.UPGRADE_BATCH_SIZE ? Number(process.env.UPGRADE_BATCH_SIZE) : undefined,
  });
  for (const s of plan.skipped) console.log(`skipped ${s.userId} (${s.wallet}): ${s.reason}`);
  const upgrading = plan.transactions.reduce((n, tx) => n + tx.userIds.length, 0);
  console.log(`${upgrading} wallet(s) to move in ${plan.transactions.length} transaction(s)`);

  const admin = plan.admin;
  if (admin !== deployer.address) {
    for (const tx of plan.transactions) console.log(`admin ${admin} must send: to ${tx.to} data ${tx.data}`);
    return;
  }
  for (const hash of await sendWalletUpgrade(deployer, plan)) console.log(`sent ${hash}`);
  console.log(`moved ${upgrading} wallet(s)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
