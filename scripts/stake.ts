/**
 * `npm run stake -- status|top-up|unlock|withdraw [entity…] [--amount <n>] [--to <address>] --network <chain>`: the
 * EntryPoint stake of the deployment's staked contracts (scripts/stake/stakeArguments.ts has the usage). A Hardhat
 * task, not a `hardhat run` script, because it takes arguments; it signs with DEPLOYER_PRIVATE_KEY, the admin's key,
 * as `npm run upgrade-wallets` does. Its code is loaded when it runs, after compiling (it reads the typechain types).
 */
import { task } from "hardhat/config";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import type { RawStakeArguments } from "./stake/stakeArguments";

/** Checks the arguments, finds the chain's contracts and policy, and runs the action; a refusal exits 1 with why. */
async function stakeAction(raw: RawStakeArguments, hre: HardhatRuntimeEnvironment): Promise<void> {
  await hre.run("compile", { quiet: true });
  const { StakeCommandError, parseStakeArguments } = await import("./stake/stakeArguments");
  const { deploymentAddresses, runStake } = await import("./stake/stakeCommand");
  const { STAKED_CONTRACTS } = await import("./deployment/deployIdwallet");
  const { stakePolicyByChainId } = await import("../gateway/chains/stakePolicy");
  try {
    const request = parseStakeArguments(raw, STAKED_CONTRACTS);
    const [signer] = await hre.ethers.getSigners();
    if (!signer) throw new StakeCommandError("no account: set DEPLOYER_PRIVATE_KEY to the admin's key");
    const { chainId } = await hre.ethers.provider.getNetwork();
    const policy = stakePolicyByChainId(chainId);
    if (!policy)
      throw new StakeCommandError(`chain id ${chainId} has no staking policy (gateway/chains/stakePolicy.ts)`);
    const { entryPoint, addresses } = deploymentAddresses(hre.network.name, STAKED_CONTRACTS, process.env);
    console.log(`${hre.network.name} (chain id ${chainId}), signer ${signer.address}`);
    await runStake(request, { signer, entryPoint, addresses, policy, log: (line) => console.log(line) });
  } catch (error) {
    // The command's own refusals and a node's or the EntryPoint's errors alike: the message, no stack trace.
    console.error(error instanceof StakeCommandError ? error.message : `npm run stake: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

task("stake", "Shows, tops up, unlocks or withdraws the EntryPoint stake of the paymaster(s) and creator")
  .addOptionalPositionalParam("action", "status | top-up | unlock | withdraw")
  .addOptionalVariadicPositionalParam("entities", "staked contracts by name (sponsorPaymaster, …)", [])
  .addOptionalParam("amount", "top-up: coins to add (default: up to the chain's minimum)")
  .addOptionalParam("to", "withdraw: where the stake goes (default: the signer)")
  .setAction(stakeAction);
