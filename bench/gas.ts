import hre, { ethers } from "hardhat";
import { dataSlice, getAddress, id, parseEther } from "ethers";
import { parseUserId } from "../gateway/identity/userId";
import { walletSalt } from "../gateway/identity/walletAddress";
import { deployIdwalletFixture } from "../test/helpers/deployment";
import { buildUserOp, handleOps, signUserOp } from "../test/helpers/userOps";
import { type BenchAccount, kernelAccount, simpleAccount, simpleAccountSolcVersion } from "./lib/accounts";

/** The gas figures of one op: what the bundle transaction cost, and what the EntryPoint charged the op. */
interface Measurement {
  readonly gasUsed: bigint;
  readonly actualGasUsed: bigint;
}

/** The deployed chain and the three accounts under test. */
type Bench = Awaited<ReturnType<typeof setUp>>;

const SCENARIOS = [
  { key: "(a)", label: "deploy + 1 transfer", transfers: 1, deploy: true },
  { key: "(b)", label: "1 transfer", transfers: 1, deploy: false },
  { key: "(c)", label: "batch of 5 transfers", transfers: 5, deploy: false },
] as const;
type Scenario = (typeof SCENARIOS)[number];

const AMOUNT = 1n;
const OWNER_ABI = ["function owner() view returns (address)"];

/** The wallet handed to an EOA: deployed and handed over before the bench, so it has no row (a). */
const HANDED_USER_ID = parseUserId("github:gas-bench-handed");

/** Deploys everything as the deploy script does, hands one Kernel to an EOA, adds SimpleAccount, funds all three. */
async function setUp() {
  const f = await deployIdwalletFixture();
  // Not deployTestContracts(): its parallel deployments give the token a different address from run to run,
  // which changes calldata bytes and signatures and so moves the results by a few dozen gas.
  const token = await ethers.deployContract("TestToken");
  const entryPointAddress = await f.entryPoint.getAddress();
  const factory = f.deployment.contracts.kernelFactory;
  const handed = kernelAccount("Kernel (EOA owner)", factory, f.alice, f.alice.address, HANDED_USER_ID);
  await (
    await f.ownerAccount.transferWalletOwnership(factory, walletSalt("kernel", HANDED_USER_ID), f.alice.address)
  ).wait();
  const accounts = [
    kernelAccount("Kernel (owner account)", factory, f.walletKey, f.deployment.contracts.ownerAccount),
    handed,
    await simpleAccount(entryPointAddress, f.admin, f.walletKey),
  ];
  // No paymaster: each wallet pays its own prefund, and holds the tokens before its first op, so the
  // sender's balance slot is written non-zero to non-zero in every row for every account.
  for (const account of accounts) {
    await (await f.admin.sendTransaction({ to: account.address, value: parseEther("1") })).wait();
    await (await token.mint(account.address, 1_000n)).wait();
  }
  return { ...f, token, tokenAddress: await token.getAddress(), entryPointAddress, accounts };
}

/** Never-used addresses, distinct per account, row and index; derived, not random, so runs are repeatable. */
const freshRecipients = (account: string, row: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => getAddress(dataSlice(id(`idwallet gas bench ${account} ${row} ${i}`), 12)));

/** Signs and submits one op with TEST_GAS; throws unless handleOps and the op itself succeeded. */
async function submit(bench: Bench, account: BenchAccount, callData: string, initCode: string): Promise<Measurement> {
  const nonce: bigint = await bench.entryPoint.getFunction("getNonce")(account.address, 0);
  const op = buildUserOp({ sender: account.address, nonce, callData, initCode });
  const signed = await signUserOp(op, account.signer, bench.entryPointAddress, bench.chainId);
  const receipt = await (await handleOps(bench.entryPoint, [signed], bench.admin.address)).wait();
  if (receipt?.status !== 1) throw new Error(`${account.label}: handleOps reverted`);
  const event = receipt.logs
    .filter((log) => log.address === bench.entryPointAddress)
    .map((log) => bench.entryPoint.interface.parseLog(log))
    .find((parsed) => parsed?.name === "UserOperationEvent");
  // A failed inner call still emits the event (and costs gas): measuring it would be meaningless.
  if (event?.args.sender !== account.address || event.args.success !== true) {
    throw new Error(`${account.label}: UserOperation did not succeed`);
  }
  return { gasUsed: receipt.gasUsed, actualGasUsed: event.args.actualGasUsed };
}

/** Runs one scenario for one account, checking the state before and every transfer and the owner after. */
async function measure(bench: Bench, account: BenchAccount, scenario: Scenario): Promise<Measurement | undefined> {
  const where = `${account.label} ${scenario.key}`;
  const isDeployed = async () => (await ethers.provider.getCode(account.address)) !== "0x";
  if ((await isDeployed()) === scenario.deploy) {
    if (account === bench.accounts[1] && scenario.deploy) return undefined; // handed over before the bench
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
  return result;
}

/** `a / b` with three decimals ("–" where `a` was not measured). */
const ratio = (a: bigint | undefined, b: bigint): string =>
  a === undefined ? "–" : (Number(a) / Number(b)).toFixed(3);

/** Markdown table: per scenario, the receipt's gasUsed and the event's actualGasUsed, with ratios to SimpleAccount. */
function table(results: readonly (Measurement | undefined)[][]): string {
  const [ownerKernel, eoaKernel, simple] = results as [Measurement[], (Measurement | undefined)[], Measurement[]];
  const lines = [
    "| Scenario | Metric | Kernel (owner account) | Kernel (EOA owner) | SimpleAccount | Kernel(EOA)/SimpleAccount | Kernel(owner account)/SimpleAccount |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  SCENARIOS.forEach((scenario, row) => {
    for (const metric of ["gasUsed", "actualGasUsed"] as const) {
      const [k1, k2, s] = [ownerKernel, eoaKernel, simple].map((m) => m[row]?.[metric]) as [
        bigint,
        bigint | undefined,
        bigint,
      ];
      const name = metric === "gasUsed" ? "handleOps tx gasUsed" : "UserOperationEvent actualGasUsed";
      lines.push(
        `| ${scenario.key} ${scenario.label} | ${name} | ${k1} | ${k2 ?? "–"} | ${s} | ${ratio(k2, s)} | ${ratio(k1, s)} |`,
      );
    }
  });
  return lines.join("\n");
}

/** The compiler settings behind the numbers: ours from the Hardhat config, SimpleAccount's from its artifact. */
function settingsLine(): string {
  const { version, settings } = hre.config.solidity.compilers[0]!;
  const optimizer = settings?.optimizer?.enabled ? `on, runs ${settings.optimizer.runs}` : "off";
  const ours = `solc ${version}, optimizer ${optimizer}, evmVersion ${settings?.evmVersion ?? "default"}, viaIR ${settings?.viaIR ?? false}`;
  const simple = `@account-abstraction/contracts 0.7.0 npm artifact, solc ${simpleAccountSolcVersion()}`;
  return `Our contracts: ${ours}. SimpleAccount: ${simple}. Hardhat hardfork: ${hre.config.networks.hardhat.hardfork}.`;
}

/** Measures every scenario for every account and prints the table. */
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
  console.log(table(results));
  console.log(`\n${settingsLine()}`);
  // Target: the production wallet (owner account) costs at most 1.10× SimpleAccount v0.7 in every row.
  const over = SCENARIOS.filter(
    (_, row) => Number(results[0]![row]!.gasUsed) > 1.1 * Number(results[2]![row]!.gasUsed),
  );
  if (over.length > 0)
    throw new Error(`production rows over 1.10× SimpleAccount: ${over.map((s) => s.key).join(", ")}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
