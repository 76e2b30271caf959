import { type Interface, type Signer, concat, id } from "ethers";
import {
  KernelAccountFactory__factory,
  LegacyBaseAccountFactory__factory,
  OffchainResolver__factory,
  OwnerAccount__factory,
  SponsorPaymaster__factory,
} from "../../typechain-types";
import { DeploymentError, deployDeterministic, ensureDeterministicDeployer } from "./deterministic";
import { ENTRY_POINT_ARTIFACT, ENTRY_POINT_V07, ENTRY_POINT_V07_SALT } from "./entryPoint";

/** Salt of every idwallet contract. Frozen: changing it moves every address. */
export const IDWALLET_SALT = id("idwallet:v1");

/** Who controls the deployment. */
export interface DeployOptions {
  /** Cold key that administers the owner account's signers and owns the paymaster. Part of the
   *  deployment's identity: wallet addresses depend on it, so use the same one on every chain. */
  readonly admin: string;
  /** Hot keys allowed to sign for every wallet (signers of the owner account). */
  readonly walletSigners: readonly string[];
  /** Hot keys allowed to approve gas sponsorship. */
  readonly sponsorSigners: readonly string[];
  /** Keys whose CCIP-read answers the ENS OffchainResolver accepts. */
  readonly ccipSigners?: readonly string[];
  /** Gateway URL templates of the OffchainResolver (`…/ccip/{sender}/{data}.json`); unset: leave them. */
  readonly ccipUrls?: readonly string[];
  /** Top the paymaster's EntryPoint deposit up to this many wei (default: leave it). */
  readonly paymasterDeposit?: bigint;
  /** Progress lines, e.g. console.log. */
  readonly log?: (line: string) => void;
}

/** Addresses of one chain's idwallet contracts. */
export interface DeployedContracts {
  readonly entryPoint: string;
  readonly ownerAccount: string;
  readonly kernelFactory: string;
  readonly kernelImplementation: string;
  readonly baseFactory: string;
  readonly baseImplementation: string;
  readonly sponsorPaymaster: string;
  readonly offchainResolver: string;
}

/** Result of deploying to one chain. */
export interface Deployment {
  readonly chainId: number;
  readonly contracts: DeployedContracts;
  /** Steps only the admin can take, left undone because the deployer is not the admin. */
  readonly pendingAdminActions: readonly string[];
}

/**
 * Deploys (or finds) every idwallet contract on the signer's chain through the deterministic
 * deployment proxy, so they sit at the same addresses on every chain, then configures signers and
 * the paymaster deposit. Safe to run again: what exists is skipped.
 */
export async function deployIdwallet(deployer: Signer, options: DeployOptions): Promise<Deployment> {
  const provider = deployer.provider;
  if (!provider) throw new DeploymentError("the deployer signer has no provider");
  const log = options.log ?? (() => undefined);
  const { chainId } = await provider.getNetwork();
  await ensureDeterministicDeployer(provider);

  const place = async (name: string, initCode: string, salt = IDWALLET_SALT): Promise<string> => {
    const { address, created } = await deployDeterministic(deployer, initCode, salt);
    log(`${name.padEnd(20)} ${address} ${created ? "deployed" : "already there"}`);
    return address;
  };

  const entryPoint = await place("EntryPoint v0.7", ENTRY_POINT_ARTIFACT.bytecode, ENTRY_POINT_V07_SALT);
  if (entryPoint !== ENTRY_POINT_V07) throw new DeploymentError(`EntryPoint landed at ${entryPoint}`);

  const ownerAccount = await place("OwnerAccount", creationCode(OwnerAccount__factory, options.admin));
  const kernelFactory = await place(
    "KernelAccountFactory",
    creationCode(KernelAccountFactory__factory, entryPoint, ownerAccount),
  );
  const baseFactory = await place(
    "LegacyBaseFactory",
    creationCode(LegacyBaseAccountFactory__factory, entryPoint, ownerAccount),
  );
  const sponsorPaymaster = await place(
    "SponsorPaymaster",
    creationCode(SponsorPaymaster__factory, entryPoint, options.admin),
  );

  const offchainResolver = await place("OffchainResolver", creationCode(OffchainResolver__factory, options.admin));

  const pendingAdminActions = await configure(deployer, options, { ownerAccount, sponsorPaymaster, offchainResolver });
  const contracts: DeployedContracts = {
    entryPoint,
    ownerAccount,
    kernelFactory,
    kernelImplementation: await KernelAccountFactory__factory.connect(kernelFactory, provider).accountImplementation(),
    baseFactory,
    baseImplementation: await LegacyBaseAccountFactory__factory.connect(baseFactory, provider).accountImplementation(),
    sponsorPaymaster,
    offchainResolver,
  };
  return { chainId: Number(chainId), contracts, pendingAdminActions };
}

/** Creation code (bytecode ‖ ABI-encoded constructor arguments) of a typechain contract factory. */
export function creationCode(
  factory: { readonly bytecode: string; createInterface(): Interface },
  ...args: readonly unknown[]
): string {
  return concat([factory.bytecode, factory.createInterface().encodeDeploy(args)]);
}

/** Adds missing signers and gateway URLs (when the deployer is the admin) and tops up the paymaster deposit. */
async function configure(
  deployer: Signer,
  options: DeployOptions,
  addresses: { ownerAccount: string; sponsorPaymaster: string; offchainResolver: string },
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const isAdmin = (await deployer.getAddress()).toLowerCase() === options.admin.toLowerCase();
  const paymaster = SponsorPaymaster__factory.connect(addresses.sponsorPaymaster, deployer);
  const resolver = OffchainResolver__factory.connect(addresses.offchainResolver, deployer);
  const pending: string[] = [];

  const targets = [
    {
      name: "OwnerAccount",
      contract: OwnerAccount__factory.connect(addresses.ownerAccount, deployer),
      signers: options.walletSigners,
    },
    { name: "SponsorPaymaster", contract: paymaster, signers: options.sponsorSigners },
    { name: "OffchainResolver", contract: resolver, signers: options.ccipSigners ?? [] },
  ];
  for (const { name, contract, signers } of targets) {
    for (const signer of signers) {
      if (await contract.isSigner(signer)) continue;
      if (!isAdmin) {
        pending.push(`${name}(${await contract.getAddress()}).addSigner(${signer})`);
        continue;
      }
      await (await contract.addSigner(signer)).wait();
      log(`${name} signer added: ${signer}`);
    }
  }

  if (options.ccipUrls && (await resolver.urls()).join("\n") !== options.ccipUrls.join("\n")) {
    if (isAdmin) {
      await (await resolver.setUrls([...options.ccipUrls])).wait();
      log(`OffchainResolver gateway URLs set: ${options.ccipUrls.join(", ")}`);
    } else {
      pending.push(`OffchainResolver(${addresses.offchainResolver}).setUrls(${JSON.stringify(options.ccipUrls)})`);
    }
  }

  const wanted = options.paymasterDeposit ?? 0n;
  const deposit = await paymaster.getDeposit();
  if (deposit < wanted) {
    await (await paymaster.deposit({ value: wanted - deposit })).wait();
    log(`SponsorPaymaster deposit topped up to ${wanted} wei`);
  }
  return pending;
}
