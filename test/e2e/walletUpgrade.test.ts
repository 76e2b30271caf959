import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Wallet, parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import { devKey } from "../../scripts/localStack/devKeys";
import { TestKernelAccountV2__factory, TestToken__factory, type TestToken } from "../../typechain-types";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { startRpcProxy } from "../helpers/rpcProxy";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
const ROOT = path.join(__dirname, "..", "..");

describe("Wallet upgrade by the admin command (e2e: npm run upgrade-wallets against the local chain)", function () {
  this.timeout(180_000);
  const alice = "tel:14155550181";
  const bob = "tel:14155550182";
  let setup: Setup;
  let service: ServiceProcess;
  let token: TestToken;
  let v2: string;
  const walletOf = (userId: string) =>
    deriveWalletAddress(setup.deployment.contracts.kernelFactory, "kernel", parseUserId(userId));

  /** Sends a token transfer from `userId`'s wallet through the service and waits until it is final. */
  const transfer = async (userId: string, to: string, amount: bigint) => {
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const data = token.interface.encodeFunctionData("transfer", [to, amount]);
    const final = await requests.final(await requests.submit(userId, [{ to: await token.getAddress(), data }]));
    expect(final, `${userId}'s transfer`).to.include({ status: "included", success: true });
  };

  /** Runs the admin command as an operator would, in its own process; returns what it printed. */
  const upgradeCommand = async (userIds: readonly string[]) => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-upgrade-"));
    const idsFile = path.join(dir, "ids.txt");
    writeFileSync(idsFile, `# wallets to move\n${userIds.join("\n")}\n`);
    const c = setup.deployment.contracts;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [require.resolve("hardhat/internal/cli/cli"), "run", "--network", "localhost", "scripts/upgradeWallets.ts"],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? dir,
          RPC_URL_LOCALHOST: setup.chain.rpcUrl,
          DEPLOYER_PRIVATE_KEY: devKey(0),
          CONTRACT_OWNER_ACCOUNT: c.ownerAccount,
          CONTRACT_KERNEL_FACTORY: c.kernelFactory,
          UPGRADE_IMPLEMENTATION: v2,
          UPGRADE_USER_IDS_FILE: idsFile,
        },
      },
    );
    return stdout;
  };

  before(async () => {
    setup = await prepareServiceOnChain();
    const admin = await setup.chain.provider.getSigner(0);
    token = await new TestToken__factory(admin).deploy();
    const c = setup.deployment.contracts;
    const second = await new TestKernelAccountV2__factory(admin).deploy(c.entryPoint, c.ownerAccount);
    v2 = await second.getAddress();
    service = await startServiceProcess(setup.env(setup.chain.rpcUrl));
    await (await token.mint(walletOf(alice), 1000n)).wait();
    await (await admin.sendTransaction({ to: walletOf(alice), value: parseEther("1") })).wait();
    // Alice's wallet is deployed by her first transaction, on current code (the creator's); Bob's is not.
    await transfer(alice, walletOf(bob), 100n);
  });
  after(async () => {
    await service.kill();
    await setup.chain.close();
  });

  it("moves a deployed and a not yet deployed wallet; address, owner and balances stay", async () => {
    const provider = setup.chain.provider;
    const c = setup.deployment.contracts;
    const aliceWallet = TestKernelAccountV2__factory.connect(walletOf(alice), provider);
    // Created by her first request through the creator, on current code (2.1); moved on to a test implementation.
    expect(await aliceWallet.implementation()).to.equal(c.kernelCurrentImplementation);
    expect(await provider.getCode(walletOf(bob))).to.equal("0x");
    const ether = await provider.getBalance(walletOf(alice));

    const printed = await upgradeCommand([alice, bob]);
    expect(printed).to.contain("2 wallet(s) to move in 1 transaction(s)");
    expect(printed).to.contain("moved 2 wallet(s)");

    for (const userId of [alice, bob]) {
      const wallet = TestKernelAccountV2__factory.connect(walletOf(userId), provider);
      expect(await wallet.implementation(), userId).to.equal(v2);
      expect(await wallet.upgradedGreeting(), userId).to.equal("running the second implementation");
      expect(await wallet.owner(), userId).to.equal(c.ownerAccount);
    }
    expect(await provider.getBalance(walletOf(alice))).to.equal(ether);
    expect(await token.balanceOf(walletOf(alice))).to.equal(900n);
    expect(await token.balanceOf(walletOf(bob))).to.equal(100n);
  });

  it("leaves the upgraded wallets transacting through the service", async () => {
    const payee = Wallet.createRandom().address;
    await transfer(alice, payee, 400n);
    await transfer(bob, payee, 60n);
    expect(await token.balanceOf(payee)).to.equal(460n);
  });

  it("skips wallets already moved when run again, and sends nothing", async () => {
    const admin = new Wallet(devKey(0)).address;
    const nonce = await setup.chain.provider.getTransactionCount(admin);
    const printed = await upgradeCommand([alice, bob]);
    expect(printed).to.contain(`skipped ${alice}`);
    expect(printed).to.contain("already on the implementation");
    expect(printed).to.contain("0 wallet(s) to move in 0 transaction(s)");
    expect(await setup.chain.provider.getTransactionCount(admin)).to.equal(nonce);
  });

  it("on a node that refuses log queries from block 0, the moved wallets transact by the implementation named in CONTRACT_WALLET_IMPLEMENTATIONS", async () => {
    // As many public nodes do: a log query over the whole chain is refused.
    const proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) =>
      method === "eth_getLogs" && (params[0] as { fromBlock?: string }).fromBlock === "0x0"
        ? { error: "query exceeds max block range" }
        : "forward",
    );
    await service.kill();
    service = await startServiceProcess(setup.env(proxy.url, { CONTRACT_WALLET_IMPLEMENTATIONS: v2 }));
    try {
      const payee = Wallet.createRandom().address;
      await transfer(alice, payee, 10n);
      expect(await token.balanceOf(payee)).to.equal(10n);
    } finally {
      await service.kill();
      await proxy.close();
    }
  });
});
