import { expect } from "chai";
import { execFile } from "node:child_process";
import path from "node:path";
import { Wallet, parseEther } from "ethers";
import { stakePolicyOf } from "../../gateway/chains/stakePolicy";
import { type Deployment, deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { readStake } from "../../scripts/deployment/entityStake";
import { type ChainNode, startChainNode } from "../../scripts/localStack/chainNode";
import { devKey } from "../../scripts/localStack/devKeys";
import { onPostgres } from "../helpers/testDatabase";

const ROOT = path.join(__dirname, "..", "..");
const LOCAL = stakePolicyOf("localhost")!;

/** What one run of the command printed, and how it ended. */
interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe("npm run stake against a real chain (e2e: the command in its own process, on anvil)", function () {
  this.timeout(240_000);
  let chain: ChainNode;
  let deployment: Deployment;
  const admin = new Wallet(devKey(0));
  const attacker = new Wallet(devKey(7));
  const payee = Wallet.createRandom().address;
  const stakeOf = () =>
    readStake(chain.provider, deployment.contracts.entryPoint, deployment.contracts.sponsorPaymaster);

  /** Runs `npm run stake -- <args> --network localhost` as an operator would, signing with `key`. */
  const stake = (key: string, ...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const cli = require.resolve("hardhat/internal/cli/cli");
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? ROOT,
        RPC_URL_LOCALHOST: chain.rpcUrl,
        DEPLOYER_PRIVATE_KEY: key,
        CONTRACT_SPONSOR_PAYMASTER: deployment.contracts.sponsorPaymaster,
      };
      execFile(process.execPath, [cli, "stake", ...args, "--network", "localhost"], { cwd: ROOT, env }, (e, o, r) =>
        resolve({ code: e ? Number(e.code ?? 1) : 0, stdout: String(o), stderr: String(r) }),
      );
    });

  // A chain and a command, no database: it runs in the SQLite lane only, as the PostgreSQL lane would run it again.
  before(async function () {
    if (onPostgres()) this.skip();
    chain = await startChainNode("127.0.0.1", 0, { kind: "anvil" });
    const signer = await chain.provider.getSigner(0);
    deployment = await deployIdwallet(signer, { admin: admin.address, walletSigners: [], sponsorSigners: [] });
  });
  after(async () => {
    await chain?.close();
  });

  it("shows the stake npm run deploy made: deposit, staked, stake, unstake delay, withdraw time, the chain's minimum", async () => {
    const run = await stake(admin.privateKey, "status");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`sponsorPaymaster ${deployment.contracts.sponsorPaymaster} (owner ${admin.address})`);
    expect(run.stdout).to.match(/staked +yes\n +stake +1\.0 ETH, locked\n +unstake delay +60 s/);
    expect(run.stdout).to.match(/withdraw time +–/);
    expect(run.stdout).to.match(/chain minimum +1\.0 ETH, 60 s delay .*: met/);
  });

  it("tops the stake up by an amount, signed with the admin's key", async () => {
    const run = await stake(admin.privateKey, "top-up", "sponsorPaymaster", "--amount", "0.25");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain("sponsorPaymaster: 1.25 ETH staked, locked, 60 s delay");
    expect(await stakeOf()).to.deep.include({ staked: true, stake: parseEther("1.25") });
  });

  it("an attacker running it with his own key unlocks nothing: it sends nothing and names the owner", async () => {
    const nonce = await chain.provider.getTransactionCount(attacker.address);
    const run = await stake(attacker.privateKey, "unlock", "sponsorPaymaster");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`is owned by ${admin.address}, not by the signer ${attacker.address}: nothing sent`);
    expect(await chain.provider.getTransactionCount(attacker.address)).to.equal(nonce);
    expect((await stakeOf()).staked).to.equal(true);
  });

  it("unlocks, then refuses a withdraw before the delay has passed, saying when it can", async () => {
    const unlocked = await stake(admin.privateKey, "unlock", "sponsorPaymaster");
    expect(unlocked.code, unlocked.stderr).to.equal(0);
    expect(unlocked.stdout).to.contain("unlocked; bundlers no longer count it staked");
    const { withdrawTime } = await stakeOf();
    const early = await stake(admin.privateKey, "withdraw", "sponsorPaymaster");
    expect(early.code).to.equal(1);
    const when = new Date(withdrawTime * 1000).toISOString();
    expect(early.stderr).to.contain(`sponsorPaymaster's stake can be withdrawn from ${when}`);
    expect((await stakeOf()).stake).to.equal(parseEther("1.25"));
  });

  it("once the delay has passed, withdraws to the address given; the attacker could not have", async () => {
    await chain.provider.send("evm_increaseTime", [LOCAL.unstakeDelaySeconds]);
    await chain.provider.send("evm_mine", []);
    const stolen = await stake(attacker.privateKey, "withdraw", "sponsorPaymaster", "--to", attacker.address);
    expect(stolen.stdout).to.contain("nothing sent");
    const run = await stake(admin.privateKey, "withdraw", "sponsorPaymaster", "--to", payee);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`sponsorPaymaster: withdrew 1.25 ETH to ${payee}`);
    expect(await chain.provider.getBalance(payee)).to.equal(parseEther("1.25"));
    expect(await stakeOf()).to.deep.include({ stake: 0n, staked: false });
  });

  it("refuses an unknown entity and a bad amount with the usage, exit code 1, sending nothing", async () => {
    const nonce = await chain.provider.getTransactionCount(admin.address);
    const unknown = await stake(admin.privateKey, "unlock", "paymaster");
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('unknown entity "paymaster": the staked contracts are sponsorPaymaster');
    expect(unknown.stderr).to.contain("usage: npm run stake");
    const amount = await stake(admin.privateKey, "top-up", "--amount", "-3");
    expect(amount.code).to.equal(1);
    expect(amount.stderr).to.contain('--amount "-3" is not a decimal number of coins');
    expect(await chain.provider.getTransactionCount(admin.address)).to.equal(nonce);
  });
});
