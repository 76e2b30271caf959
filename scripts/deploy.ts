/**
 * Deploys idwallet's contracts to one chain: `npm run deploy -- --network <chain>`.
 * Settings come from the environment (see .env.example); the result is written to deployments/<chain>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import hre, { ethers } from "hardhat";
import { Wallet, parseEther } from "ethers";
import { chainByName } from "../gateway/chains/registry";
import { deployIdwallet } from "./deployment/deployIdwallet";
import { DeploySettingsError, deployRoles } from "./deployment/deploySettings";
import { DEFAULT_ENS_DOMAIN, ENS_REGISTRY_MAINNET, setDomainResolver } from "./deployment/ensDomain";

async function main(): Promise<void> {
  const [deployer] = await ethers.getSigners();
  if (!deployer) throw new Error("no deployer account: set DEPLOYER_PRIVATE_KEY");
  // Checked before any transaction: nothing is deployed under roles the operator did not name.
  const { warnings, ...roles } = deployRoles(process.env, deployer.address);
  for (const warning of warnings) console.warn(`WARNING: ${warning}`);
  const network = hre.network.name;
  const { chainId } = await ethers.provider.getNetwork();
  const known = chainByName(network);
  if (known && BigInt(known.chainId) !== chainId) {
    throw new Error(`network ${network} answers chain id ${chainId}, the registry says ${known.chainId}`);
  }

  const ensDomain = process.env.ENS_DOMAIN || DEFAULT_ENS_DOMAIN;
  const deployment = await deployIdwallet(deployer, {
    ...roles,
    ensDomain,
    ccipUrls: process.env.CCIP_GATEWAY_URL
      ? [`${process.env.CCIP_GATEWAY_URL.replace(/\/$/, "")}/ccip/{sender}/{data}.json`]
      : undefined,
    paymasterDeposit: parseEther(process.env.PAYMASTER_DEPOSIT_ETH ?? "0"),
    // New wallets start on current code: the creator takes the owner account's admin role (the admin forwards).
    creatorAsAdmin: true,
    log: (line) => console.log(line),
  });
  for (const action of deployment.pendingAdminActions) console.log(`admin must still call: ${action}`);

  // ENSIP-10: the domain's owner points it at the IdwalletResolver on the ENS chain.
  const domainOwnerKey = process.env.ENS_DOMAIN_OWNER_KEY;
  if (domainOwnerKey) {
    if (!process.env.ENS_DOMAIN) throw new Error("ENS_DOMAIN_OWNER_KEY is set but ENS_DOMAIN is not");
    const domainOwner = new Wallet(domainOwnerKey, ethers.provider);
    const registry = process.env.ENS_REGISTRY ?? ENS_REGISTRY_MAINNET;
    await setDomainResolver(registry, domainOwner, ensDomain, deployment.contracts.ensResolver, console.log);
  }

  if (network === "hardhat") {
    console.log("in-process hardhat network: nothing written (its state ends with this command)");
    return;
  }
  const file = path.join(__dirname, "..", "deployments", `${network}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  const record = { chain: network, ...deployment, compiler: hre.config.solidity.compilers[0] };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof DeploySettingsError ? error.message : error);
  process.exitCode = 1;
});
