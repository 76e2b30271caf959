import { expect } from "chai";
import { type BrowserProvider, type Signer, parseEther } from "ethers";
import { stakePolicyOf } from "../../gateway/chains/stakePolicy";
import { type DeployOptions, STAKED_CONTRACTS, deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { readStake } from "../../scripts/deployment/entityStake";
import { StakeCommandError, parseStakeArguments } from "../../scripts/stake/stakeArguments";
import { runStake } from "../../scripts/stake/stakeCommand";
import { SponsorPaymaster__factory } from "../../typechain-types";
import { startSecondChain } from "../helpers/secondChain";

const LOCAL = stakePolicyOf("localhost")!;
const EMPTY: Omit<DeployOptions, "admin"> = { walletSigners: [], sponsorSigners: [] };

/** A fresh chain with idwallet deployed by its first dev account, the admin; the second and third are strangers. */
async function deployed() {
  const provider: BrowserProvider = await startSecondChain(31337);
  const [admin, attacker, payee] = await Promise.all([0, 1, 2].map((i) => provider.getSigner(i)));
  const lines: string[] = [];
  const deployment = await deployIdwallet(admin!, { ...EMPTY, admin: admin!.address, log: (l) => lines.push(l) });
  const c = deployment.contracts;
  const stakeOf = () => readStake(provider, c.entryPoint, c.sponsorPaymaster);
  /** Runs `npm run stake` as `signer` would, collecting what it prints. */
  const stake = async (signer: Signer, args: Parameters<typeof parseStakeArguments>[0]) => {
    const printed: string[] = [];
    const request = parseStakeArguments(args, STAKED_CONTRACTS);
    const addresses = { sponsorPaymaster: c.sponsorPaymaster };
    await runStake(request, {
      signer,
      entryPoint: c.entryPoint,
      addresses,
      policy: LOCAL,
      log: (l) => printed.push(l),
    });
    return printed.join("\n");
  };
  const refusal = (signer: Signer, args: Parameters<typeof parseStakeArguments>[0]) =>
    stake(signer, args).then(
      () => expect.fail("the command was not refused"),
      (error: unknown) => {
        expect(error).to.be.instanceOf(StakeCommandError);
        return (error as Error).message;
      },
    );
  const later = async (seconds: number) => {
    await provider.send("evm_increaseTime", [seconds]);
    await provider.send("evm_mine", []);
  };
  return {
    provider,
    admin: admin!,
    attacker: attacker!,
    payee: payee!,
    deployment,
    lines,
    stakeOf,
    stake,
    refusal,
    later,
  };
}

describe("Stake of the deployment's paymaster at the EntryPoint (ERC-7562 staked entities)", () => {
  it("npm run deploy stakes the SponsorPaymaster at the chain's minimum, and sends nothing when run again", async () => {
    const { provider, admin, deployment, lines, stakeOf } = await deployed();
    expect(await stakeOf()).to.deep.include({ staked: true, stake: LOCAL.minimumStakeWei, withdrawTime: 0 });
    expect((await stakeOf()).unstakeDelaySec).to.equal(LOCAL.unstakeDelaySeconds);
    expect(lines.join("\n")).to.contain("sponsorPaymaster staked at the EntryPoint: 1.0 ETH, unstake delay 60 s");
    expect(deployment.pendingAdminActions).to.deep.equal([]);
    const nonce = await provider.getTransactionCount(admin.address);
    await deployIdwallet(admin, { ...EMPTY, admin: admin.address });
    expect(await provider.getTransactionCount(admin.address)).to.equal(nonce);
  });

  it("leaves the stake to the admin when the deployer is not the admin, and lists it among the admin's actions", async () => {
    const provider = await startSecondChain(31337);
    const [deployer, admin] = await Promise.all([0, 1].map((i) => provider.getSigner(i)));
    const { contracts, pendingAdminActions } = await deployIdwallet(deployer!, { ...EMPTY, admin: admin!.address });
    expect(await readStake(provider, contracts.entryPoint, contracts.sponsorPaymaster)).to.deep.include({ stake: 0n });
    expect(pendingAdminActions).to.include(
      `sponsorPaymaster(${contracts.sponsorPaymaster}).addStake(60) sending 1.0 ETH (1000000000000000000 wei)`,
    );
  });

  it("refuses a chain without a staking policy before any transaction", async () => {
    const provider = await startSecondChain(4242);
    const deployer = await provider.getSigner(0);
    const nonce = await provider.getTransactionCount(deployer.address);
    await deployIdwallet(deployer, { ...EMPTY, admin: deployer.address }).then(
      () => expect.fail("deployed without a staking policy"),
      (error: unknown) => expect(String(error)).to.contain("chain id 4242 has no staking policy"),
    );
    expect(await provider.getTransactionCount(deployer.address)).to.equal(nonce);
  });

  it("tops up, unlocks, refuses a withdraw before the delay (saying when), withdraws after it, and stakes again", async () => {
    const { provider, admin, payee, stakeOf, stake, refusal, later } = await deployed();
    const status = await stake(admin, { action: "status" });
    expect(status).to.match(/deposit +0\.0 ETH/);
    expect(status).to.match(/staked +yes/);
    expect(status).to.match(/stake +1\.0 ETH, locked/);
    expect(status).to.match(/unstake delay +60 s \(1 min\)/);
    expect(status).to.match(/withdraw time +–/);
    expect(status).to.contain("chain minimum    1.0 ETH, 60 s delay");
    expect(status).to.match(/: met$/m);
    expect(await stake(admin, { action: "top-up" })).to.contain("the chain's minimum: nothing sent");
    expect(await stake(admin, { action: "top-up", amount: "0.5" })).to.contain("1.5 ETH staked, locked, 60 s delay");

    expect(await refusal(admin, { action: "withdraw", entities: ["sponsorPaymaster"] })).to.contain(
      "stake is locked: npm run stake -- unlock sponsorPaymaster first, then wait its unstake delay (1 min)",
    );
    const unlocked = await stake(admin, { action: "unlock", entities: ["sponsorPaymaster"] });
    expect(unlocked).to.contain("unlocked; bundlers no longer count it staked");
    const info = await stakeOf();
    expect(info.staked).to.equal(false);
    expect(await stake(admin, { action: "status" })).to.match(/staked +no[\s\S]*NOT met: npm run stake -- top-up/);
    expect(await refusal(admin, { action: "unlock", entities: ["sponsorPaymaster"] })).to.contain("already unlocking");

    const early = await refusal(admin, { action: "withdraw", entities: ["sponsorPaymaster"] });
    const when = new Date(info.withdrawTime * 1000).toISOString();
    expect(early).to.contain(`sponsorPaymaster's stake can be withdrawn from ${when} (in 1 min), chain time`);

    await later(LOCAL.unstakeDelaySeconds);
    const before = await provider.getBalance(payee.address);
    const withdrawn = await stake(admin, { action: "withdraw", entities: ["sponsorPaymaster"], to: payee.address });
    expect(withdrawn).to.contain(`withdrew 1.5 ETH to ${payee.address}`);
    expect(await provider.getBalance(payee.address)).to.equal(before + parseEther("1.5"));
    expect(await stakeOf()).to.deep.include({ staked: false, stake: 0n, unstakeDelaySec: 0, withdrawTime: 0 });
    expect(await refusal(admin, { action: "unlock", entities: ["sponsorPaymaster"] })).to.contain("no stake to unlock");
    expect(await refusal(admin, { action: "withdraw", entities: ["sponsorPaymaster"] })).to.contain(
      "no stake to withdraw",
    );

    await stake(admin, { action: "top-up" });
    expect(await stakeOf()).to.deep.include({ staked: true, stake: LOCAL.minimumStakeWei });
  });

  it("locks an unlocking stake again on top-up, and a later deploy leaves an unlocking stake as it is", async () => {
    const { admin, stakeOf, stake } = await deployed();
    await stake(admin, { action: "unlock", entities: ["sponsorPaymaster"] });
    const lines: string[] = [];
    await deployIdwallet(admin, { ...EMPTY, admin: admin.address, log: (l) => lines.push(l) });
    expect((await stakeOf()).staked).to.equal(false);
    expect(lines.join("\n")).to.contain("sponsorPaymaster stake is unlocking: left as it is");
    expect(await stake(admin, { action: "top-up" })).to.contain("1.0 ETH staked, locked");
    expect(await stakeOf()).to.deep.include({ staked: true, stake: LOCAL.minimumStakeWei, withdrawTime: 0 });
  });

  it("an attacker who is not the paymaster's owner can neither unlock nor withdraw its stake, nor add to it", async () => {
    const { provider, admin, attacker, deployment, stakeOf, stake, later } = await deployed();
    const paymaster = SponsorPaymaster__factory.connect(deployment.contracts.sponsorPaymaster, attacker);
    const unauthorized = "OwnableUnauthorizedAccount";
    await expect(paymaster.unlockStake()).to.be.revertedWithCustomError(paymaster, unauthorized);
    await expect(paymaster.withdrawStake(attacker.address)).to.be.revertedWithCustomError(paymaster, unauthorized);
    await expect(paymaster.addStake(1, { value: 1n })).to.be.revertedWithCustomError(paymaster, unauthorized);

    // The command, run with his key, sends nothing and says who must.
    const nonce = await provider.getTransactionCount(attacker.address);
    const printed = await stake(attacker, { action: "unlock", entities: ["sponsorPaymaster"] });
    expect(printed).to.contain(`is owned by ${admin.address}, not by the signer ${attacker.address}: nothing sent`);
    expect(await provider.getTransactionCount(attacker.address)).to.equal(nonce);
    expect((await stakeOf()).staked).to.equal(true);

    // Once the admin unlocked and the delay passed, the stake is still the owner's alone to withdraw.
    await stake(admin, { action: "unlock", entities: ["sponsorPaymaster"] });
    await later(LOCAL.unstakeDelaySeconds);
    await expect(paymaster.withdrawStake(attacker.address)).to.be.revertedWithCustomError(paymaster, unauthorized);
    await stake(attacker, { action: "withdraw", entities: ["sponsorPaymaster"], to: attacker.address });
    expect(await stakeOf()).to.deep.include({ stake: LOCAL.minimumStakeWei });
  });
});

describe("npm run stake: its arguments", () => {
  const known = ["sponsorPaymaster", "custodyPaymaster"];
  const refused = (raw: Parameters<typeof parseStakeArguments>[0]) => {
    expect(() => parseStakeArguments(raw, known)).to.throw(StakeCommandError);
    try {
      parseStakeArguments(raw, known);
    } catch (error) {
      expect((error as Error).message).to.contain("usage: npm run stake");
      return (error as Error).message.split("\n")[0];
    }
    return "";
  };

  it("refuses an unknown action or entity, naming what there is", () => {
    expect(refused({})).to.equal("npm run stake: no action given");
    expect(refused({ action: "stake" })).to.contain('unknown action "stake": one of status, top-up, unlock, withdraw');
    expect(refused({ action: "status", entities: ["paymaster"] })).to.contain(
      'unknown entity "paymaster": the staked contracts are sponsorPaymaster, custodyPaymaster',
    );
  });

  it("takes unlock and withdraw only for entities named, never for all at once", () => {
    expect(refused({ action: "unlock" })).to.contain("unlock takes the entities by name");
    expect(refused({ action: "withdraw", entities: [] })).to.contain("withdraw takes the entities by name");
    expect(parseStakeArguments({ action: "status" }, known)).to.deep.equal({ action: "status", entities: [] });
  });

  it("refuses an amount that is not a positive number of coins, an address that is none, an option out of place", () => {
    for (const amount of ["0", "-1", "abc", "1e18", "0.0000000000000000001", ""]) {
      expect(refused({ action: "top-up", amount }), amount).to.contain(`--amount "${amount}" is not`);
    }
    expect(parseStakeArguments({ action: "top-up", amount: "0.5" }, known).amountWei).to.equal(parseEther("0.5"));
    expect(refused({ action: "withdraw", entities: ["sponsorPaymaster"], to: "0x12" })).to.contain("is not an address");
    expect(refused({ action: "unlock", entities: ["sponsorPaymaster"], amount: "1" })).to.contain("with top-up only");
    expect(refused({ action: "top-up", to: "0x0000000000000000000000000000000000000001" })).to.contain(
      "with withdraw only",
    );
  });
});
