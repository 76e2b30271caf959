import { type Signer, id, namehash } from "ethers";
import { type StakePolicy, stakePolicyByChainId } from "../../gateway/chains/stakePolicy";
import { WALLET_CHAIN_IDS } from "../../gateway/ens/coinTypes";
import { factoryImplementation, proxyInitCodeHash } from "../../gateway/identity/walletAddress";
import {
  CustodyPaymaster__factory,
  IdwalletResolver__factory,
  KernelAccountFactory__factory,
  LegacyBaseAccountFactory__factory,
  OwnerAccount__factory,
  SponsorPaymaster__factory,
} from "../../typechain-types";
import { DeploymentError, deployDeterministic, ensureDeterministicDeployer } from "./deterministic";
import { creationCode } from "./creationCode";
import { type WalletCodeContracts, handAdminToCreator, placeWalletCode } from "./deployWalletCode";
import { adminRoute } from "./ownerAccountAdmin";
import { DEFAULT_ENS_DOMAIN } from "./ensDomain";
import { stakeEntities } from "./entityStake";
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
  /** The ENS domain whose names the resolver answers (default idwallet.eth). Part of the resolver's address. */
  readonly ensDomain?: string;
  /** Keys whose CCIP-read answers the ENS resolver accepts. */
  readonly ccipSigners?: readonly string[];
  /** Gateway URL templates of the ENS resolver (`…/ccip/{sender}/{data}.json`); unset: leave them. */
  readonly ccipUrls?: readonly string[];
  /** Top the paymaster's EntryPoint deposit up to this many wei (default: leave it). */
  readonly paymasterDeposit?: bigint;
  /** The stake of STAKED_CONTRACTS (default: the chain's, gateway/chains/stakePolicy.ts; required off the registry). */
  readonly stakePolicy?: StakePolicy;
  /**
   * Hand the OwnerAccount's admin role to the KernelAccountCreator, so that new wallets start on current code (the
   * admin then forwards every admin call through it; scripts/deployment/ownerAccountAdmin.ts). `npm run deploy` and
   * the local stack do; default false.
   */
  readonly creatorAsAdmin?: boolean;
  /** Progress lines, e.g. console.log. */
  readonly log?: (line: string) => void;
}

/** Addresses of one chain's idwallet contracts. */
export interface DeployedContracts extends WalletCodeContracts {
  readonly entryPoint: string;
  readonly ownerAccount: string;
  readonly kernelFactory: string;
  readonly kernelImplementation: string;
  readonly baseFactory: string;
  readonly baseImplementation: string;
  readonly sponsorPaymaster: string;
  /** The IdwalletResolver the ENS domain points at. */
  readonly ensResolver: string;
}

/**
 * The contracts staked at the EntryPoint, by their name in DeployedContracts: ERC-7562 bundlers accept an operation
 * whose paymaster or factory reads its own storage only when that entity is staked (STO-031). Each is owned by the
 * admin and has BasePaymaster's owner-only addStake / unlockStake / withdrawStake (scripts/deployment/entityStake.ts).
 */
export const STAKED_CONTRACTS = [
  "sponsorPaymaster",
  "custodyPaymaster",
  "kernelCreator",
] as const satisfies readonly (keyof DeployedContracts)[];

/** Result of deploying to one chain. */
export interface Deployment {
  readonly chainId: number;
  readonly contracts: DeployedContracts;
  /** Steps only the admin can take, left undone because the deployer is not the admin (signers, stake, …). */
  readonly pendingAdminActions: readonly string[];
}

/**
 * Deploys (or finds) every idwallet contract on the signer's chain through the deterministic
 * deployment proxy, so they sit at the same addresses on every chain, then configures signers and
 * the paymaster deposit and the resolver, and stakes STAKED_CONTRACTS at the chain's minimum. Safe to run again: what
 * exists is skipped.
 */
export async function deployIdwallet(deployer: Signer, options: DeployOptions): Promise<Deployment> {
  const provider = deployer.provider;
  if (!provider) throw new DeploymentError("the deployer signer has no provider");
  const log = options.log ?? (() => undefined);
  const { chainId } = await provider.getNetwork();
  // Before any transaction: a chain without a staking policy stops here, not half deployed.
  const stakePolicy = options.stakePolicy ?? stakePolicyByChainId(chainId);
  if (!stakePolicy)
    throw new DeploymentError(`chain id ${chainId} has no staking policy (gateway/chains/stakePolicy.ts)`);
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

  // The resolver derives wallet addresses on chain exactly as gateway/identity/walletAddress.ts does.
  const ensResolver = await place(
    "IdwalletResolver",
    creationCode(
      IdwalletResolver__factory,
      options.admin,
      kernelFactory,
      proxyInitCodeHash(factoryImplementation(kernelFactory)),
      namehash(options.ensDomain ?? DEFAULT_ENS_DOMAIN),
    ),
  );

  const walletCode = await placeWalletCode(place, { entryPoint, ownerAccount, kernelFactory, admin: options.admin });

  const pendingAdminActions = await configure(deployer, options, {
    ownerAccount,
    sponsorPaymaster,
    custodyPaymaster: walletCode.custodyPaymaster,
    ensResolver,
  });
  if (options.creatorAsAdmin) {
    pendingAdminActions.push(...(await handAdminToCreator(deployer, { ownerAccount, ...walletCode }, log)));
  }
  const contracts: DeployedContracts = {
    ...walletCode,
    entryPoint,
    ownerAccount,
    kernelFactory,
    kernelImplementation: await KernelAccountFactory__factory.connect(kernelFactory, provider).accountImplementation(),
    baseFactory,
    baseImplementation: await LegacyBaseAccountFactory__factory.connect(baseFactory, provider).accountImplementation(),
    sponsorPaymaster,
    ensResolver,
  };
  const staked = STAKED_CONTRACTS.map((name) => ({ name, address: contracts[name] }));
  pendingAdminActions.push(...(await stakeEntities(deployer, entryPoint, staked, stakePolicy, log)));
  return { chainId: Number(chainId), contracts, pendingAdminActions };
}

export { creationCode } from "./creationCode";

/**
 * Adds missing signers, gateway URLs and resolver chains (when the deployer is the admin) and tops up the
 * paymaster deposit.
 */
async function configure(
  deployer: Signer,
  options: DeployOptions,
  addresses: { ownerAccount: string; sponsorPaymaster: string; custodyPaymaster: string; ensResolver: string },
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const isAdmin = (await deployer.getAddress()).toLowerCase() === options.admin.toLowerCase();
  const paymaster = SponsorPaymaster__factory.connect(addresses.sponsorPaymaster, deployer);
  const resolver = IdwalletResolver__factory.connect(addresses.ensResolver, deployer);
  const pending: string[] = [];

  const targets = [
    {
      name: "OwnerAccount",
      contract: OwnerAccount__factory.connect(addresses.ownerAccount, deployer),
      signers: options.walletSigners,
    },
    { name: "SponsorPaymaster", contract: paymaster, signers: options.sponsorSigners },
    { name: "IdwalletResolver", contract: resolver, signers: options.ccipSigners ?? [] },
  ];
  for (const { name, contract, signers } of targets) {
    for (const signer of signers) {
      if (await contract.isSigner(signer)) continue;
      if (!isAdmin) {
        pending.push(`${name}(${await contract.getAddress()}).addSigner(${signer})`);
        continue;
      }
      // The OwnerAccount's admin may be the creator by now: its calls go through the creator's forward.
      const data = contract.interface.encodeFunctionData("addSigner", [signer]);
      const route =
        name === "OwnerAccount"
          ? await adminRoute(deployer, addresses.ownerAccount, data)
          : { to: await contract.getAddress(), data };
      await (await deployer.sendTransaction({ to: route.to, data: route.data })).wait();
      log(`${name} signer added: ${signer}`);
    }
  }

  if (options.ccipUrls && (await resolver.urls()).join("\n") !== options.ccipUrls.join("\n")) {
    if (isAdmin) {
      await (await resolver.setUrls([...options.ccipUrls])).wait();
      log(`IdwalletResolver gateway URLs set: ${options.ccipUrls.join(", ")}`);
    } else {
      pending.push(`IdwalletResolver(${addresses.ensResolver}).setUrls(${JSON.stringify(options.ccipUrls)})`);
    }
  }

  // ENSIP-11: the resolver answers the coin types of the registry's chains, as the gateway does.
  const chains: number[] = [];
  for (const chainId of WALLET_CHAIN_IDS) if (!(await resolver.isChainAnswered(chainId))) chains.push(chainId);
  if (chains.length > 0) {
    if (isAdmin) {
      await (await resolver.setChains(chains, true)).wait();
      log(`IdwalletResolver answers the coin types of chains ${chains.join(", ")}`);
    } else {
      pending.push(`IdwalletResolver(${addresses.ensResolver}).setChains(${JSON.stringify(chains)}, true)`);
    }
  }

  // Both paymasters pay from their own EntryPoint deposit: 2.0.0 wallets through one, 2.1 wallets through the other.
  const wanted = options.paymasterDeposit ?? 0n;
  const custodyPaymaster = CustodyPaymaster__factory.connect(addresses.custodyPaymaster, deployer);
  for (const [name, contract] of [
    ["SponsorPaymaster", paymaster],
    ["CustodyPaymaster", custodyPaymaster],
  ] as const) {
    const deposit = await contract.getDeposit();
    if (deposit >= wanted) continue;
    await (await contract.deposit({ value: wanted - deposit })).wait();
    log(`${name} deposit topped up to ${wanted} wei`);
  }
  return pending;
}
