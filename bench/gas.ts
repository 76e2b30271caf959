/**
 * Gas of the same three UserOperations (deploy + transfer, transfer, batch of five) for our wallets and for
 * eth-infinitism's SimpleAccount v0.7, one operation a handleOps on the in-process Hardhat chain, every operation
 * checked to have succeeded. Two tables: each account paying its own gas (wallet code 2.0.0 and SimpleAccount, as
 * before), and sponsored: the custodial wallet on code 2.1 under the CustodyPaymaster (it cannot pay for itself) as
 * sealed in a bundle of 1 and of 64 (a proof of 6 entries, whose calldata is priced apart: on an L2 it is data), beside
 * 2.0.0 under the SponsorPaymaster and SimpleAccount self-paid and under eth-infinitism's VerifyingPaymaster sample
 * (the npm artifact). Then issue 36's target: 2.1 at most 1.10× SimpleAccount in each row, reported, not thrown.
 *
 *   npm run bench:gas
 */
import hre, { ethers } from "hardhat";
import { SigningKey, computeAddress, dataSlice, getAddress, id, parseEther } from "ethers";
import { parseUserId } from "../gateway/identity/userId";
import { walletSalt } from "../gateway/identity/walletAddress";
import { IMPLEMENTATION_SLOT } from "../gateway/userop/walletSlotReaderCode";
import { handAdminToCreator } from "../scripts/deployment/deployWalletCode";
import { devKey } from "../scripts/localStack/devKeys";
import { deployIdwalletFixture } from "../test/helpers/deployment";
import { buildUserOp, handleOps } from "../test/helpers/userOps";
import { type BenchAccount, kernelAccount, simpleAccount, simpleAccountSolcVersion } from "./lib/accounts";
import { calldataCost, custodyRoot, ownerSigned, sponsorPaymaster, verifyingPaymaster } from "./lib/gasAuthorizers";
import { type Measurement, SCENARIOS, type Scenario, ACCOUNT_KEYS, gasReport } from "./lib/gasTables";

/** The deployed chain and the accounts under test. */
type Bench = Awaited<ReturnType<typeof setUp>>;

const AMOUNT = 1n;
const OWNER_ABI = ["function owner() view returns (address)"];
/** The bundle size whose proof the second 2.1 wallet carries: the service's default TX_MAX_OPS_PER_BUNDLE. */
const LARGE_BUNDLE = 64;

/** The wallet handed to an EOA: deployed and handed over before the bench, so it has no row (a). */
const HANDED_USER_ID = parseUserId("github:gas-bench-handed");

/**
 * Deploys everything as the deploy script does, hands one Kernel to an EOA, adds SimpleAccount, funds the self-paying
 * accounts (in the order of the earlier bench, so their figures stay comparable), then hands the owner account's admin
 * role to the creator (as `npm run deploy` now does) and sets up the sponsored accounts.
 */
async function setUp() {
  const f = await deployIdwalletFixture();
  const c = f.deployment.contracts;
  // Not deployTestContracts(): its parallel deployments give the token a different address from run to run,
  // which changes calldata bytes and signatures and so moves the results by a few dozen gas.
  const token = await ethers.deployContract("TestToken");
  const entryPointAddress = await f.entryPoint.getAddress();
  const chain = { entryPoint: entryPointAddress, chainId: f.chainId };
  const frozen = { factory: c.kernelFactory };
  const handed = kernelAccount(
    "Kernel (EOA owner)",
    frozen,
    ownerSigned(f.alice, chain),
    f.alice.address,
    HANDED_USER_ID,
  );
  await (
    await f.ownerAccount.transferWalletOwnership(c.kernelFactory, walletSalt("kernel", HANDED_USER_ID), f.alice.address)
  ).wait();
  const selfPaying = [
    kernelAccount("Kernel (owner account)", frozen, ownerSigned(f.walletKey, chain), c.ownerAccount),
    handed,
    await simpleAccount("SimpleAccount", entryPointAddress, f.admin, f.walletKey, ownerSigned(f.walletKey, chain)),
  ];
  // No paymaster: each wallet pays its own prefund, and holds the tokens before its first op, so the
  // sender's balance slot is written non-zero to non-zero in every row for every account.
  for (const account of selfPaying) {
    await (await f.admin.sendTransaction({ to: account.address, value: parseEther("1") })).wait();
    await (await token.mint(account.address, 1_000n)).wait();
  }

  await handAdminToCreator(f.admin, c, () => undefined);
  const custodyKey = new SigningKey(devKey(1));
  if (computeAddress(custodyKey.publicKey) !== f.walletKey.address) throw new Error("dev key 1 is not the wallet key");
  const current = { factory: c.kernelFactory, creator: c.kernelCreator };
  const custodial = (label: string, user: string, bundleSize: number): BenchAccount => ({
    ...kernelAccount(
      label,
      current,
      custodyRoot(c.custodyPaymaster, custodyKey, chain, bundleSize),
      c.ownerAccount,
      parseUserId(user),
    ),
    expectedImplementation: c.kernelCurrentImplementation,
  });
  const sponsored = [
    custodial("Kernel 2.1 (owner account), bundle of 1", "github:gas-bench-21-one", 1),
    custodial(`Kernel 2.1 (owner account), bundle of ${LARGE_BUNDLE}`, "github:gas-bench-21-many", LARGE_BUNDLE),
    {
      ...kernelAccount(
        "Kernel 2.0.0 (owner account) + SponsorPaymaster",
        frozen,
        ownerSigned(f.walletKey, chain, sponsorPaymaster(c.sponsorPaymaster, f.sponsorKey, chain)),
        c.ownerAccount,
        parseUserId("github:gas-bench-sponsored"),
      ),
      expectedImplementation: c.kernelImplementation,
    },
    await simpleAccount(
      "SimpleAccount + VerifyingPaymaster",
      entryPointAddress,
      f.admin,
      f.walletKey,
      ownerSigned(f.walletKey, chain, await verifyingPaymaster(f.admin, f.sponsorKey, chain)),
    ),
  ];
  // Sponsored: no ether; the tokens before the first op, as above.
  for (const account of sponsored) await (await token.mint(account.address, 1_000n)).wait();
  const accounts = [...selfPaying, ...sponsored];
  if (accounts.length !== ACCOUNT_KEYS.length) throw new Error("the accounts and the report's columns differ");
  return { ...f, token, tokenAddress: await token.getAddress(), entryPointAddress, accounts };
}

/** Never-used addresses, distinct per account, row and index; derived, not random, so runs are repeatable. */
const freshRecipients = (account: string, row: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => getAddress(dataSlice(id(`idwallet gas bench ${account} ${row} ${i}`), 12)));

/** Authorizes and submits one op with TEST_GAS; throws unless handleOps and the op itself succeeded. */
async function submit(bench: Bench, account: BenchAccount, callData: string, initCode: string): Promise<Measurement> {
  const nonce: bigint = await bench.entryPoint.getFunction("getNonce")(account.address, 0);
  const { op, apartBytes } = await account.authorize(
    buildUserOp({ sender: account.address, nonce, callData, initCode }),
  );
  const receipt = await (await handleOps(bench.entryPoint, [op], bench.admin.address)).wait();
  if (receipt?.status !== 1) throw new Error(`${account.label}: handleOps reverted`);
  const event = receipt.logs
    .filter((log) => log.address === bench.entryPointAddress)
    .map((log) => bench.entryPoint.interface.parseLog(log))
    .find((parsed) => parsed?.name === "UserOperationEvent");
  // A failed inner call still emits the event (and costs gas): measuring it would be meaningless.
  if (event?.args.sender !== account.address || event.args.success !== true) {
    throw new Error(`${account.label}: UserOperation did not succeed`);
  }
  return {
    gasUsed: receipt.gasUsed,
    actualGasUsed: event.args.actualGasUsed,
    ...(apartBytes ? { apart: calldataCost(apartBytes) } : {}),
  };
}

/** Runs one scenario for one account, checking the state before and every transfer and the owner after. */
async function measure(bench: Bench, account: BenchAccount, scenario: Scenario): Promise<Measurement | undefined> {
  const where = `${account.label} ${scenario.key}`;
  const isDeployed = async () => (await ethers.provider.getCode(account.address)) !== "0x";
  if ((await isDeployed()) === scenario.deploy) {
    if (account.label === "Kernel (EOA owner)" && scenario.deploy) return undefined; // handed over before the bench
    throw new Error(`${where}: unexpected deployment state`);
  }
  const recipients = freshRecipients(account.label, scenario.key, scenario.transfers);
  for (const to of recipients) {
    if ((await bench.token.balanceOf(to)) !== 0n) throw new Error(`${where}: recipient ${to} is not fresh`);
  }
  const transfers = recipients.map((to) => ({ to, amount: AMOUNT }));
  const callData = account.encodeTransfers(bench.tokenAddress, transfers);
  const result = await submit(bench, account, callData, scenario.deploy ? account.initCode : "0x");
  for (const to of recipients) {
    if ((await bench.token.balanceOf(to)) !== AMOUNT) throw new Error(`${where}: transfer to ${to} missing`);
  }
  const owner: string = await new ethers.Contract(account.address, OWNER_ABI, ethers.provider).getFunction("owner")();
  if (owner !== account.expectedOwner) throw new Error(`${where}: owner is ${owner}, not ${account.expectedOwner}`);
  if (account.expectedImplementation) {
    const slot = await ethers.provider.getStorage(account.address, IMPLEMENTATION_SLOT);
    const implementation = getAddress(dataSlice(slot, 12));
    if (implementation !== getAddress(account.expectedImplementation)) {
      throw new Error(`${where}: runs ${implementation}, not ${account.expectedImplementation}`);
    }
  }
  return result;
}

/** The compiler settings behind the numbers: ours from the Hardhat config, SimpleAccount's from its artifact. */
function settingsLine(): string {
  const { version, settings } = hre.config.solidity.compilers[0]!;
  const optimizer = settings?.optimizer?.enabled ? `on, runs ${settings.optimizer.runs}` : "off";
  const ours = `solc ${version}, optimizer ${optimizer}, evmVersion ${settings?.evmVersion ?? "default"}, viaIR ${settings?.viaIR ?? false}`;
  const simple = `@account-abstraction/contracts 0.7.0 npm artifact, solc ${simpleAccountSolcVersion()}`;
  return `Our contracts: ${ours}. SimpleAccount: ${simple}. Hardhat hardfork: ${hre.config.networks.hardhat.hardfork}.`;
}

/** Measures every scenario for every account and prints the tables. */
async function main(): Promise<void> {
  const bench = await setUp();
  const results: (Measurement | undefined)[][] = bench.accounts.map(() => []);
  // The handed-over wallet has no row (a): one op first, so that its nonce and token balance are warm as the others'.
  const handed = bench.accounts[1]!;
  const warmUp = handed.encodeTransfers(bench.tokenAddress, [
    { to: freshRecipients(handed.label, "warm-up", 1)[0]!, amount: AMOUNT },
  ]);
  await submit(bench, handed, warmUp, "0x");
  for (const scenario of SCENARIOS) {
    for (const [i, account] of bench.accounts.entries()) results[i]!.push(await measure(bench, account, scenario));
  }
  console.log(gasReport(results, LARGE_BUNDLE, settingsLine()));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
