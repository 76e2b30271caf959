import { expect } from "chai";
import { type JsonRpcSigner, type Signer, Wallet, parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { userOperationHash } from "../../gateway/userop/packedUserOperation";
import { toRpcUserOperation } from "../../gateway/userop/rpcUserOperation";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { adminRoute } from "../../scripts/deployment/ownerAccountAdmin";
import { planWalletUpgrade, sendWalletUpgrade } from "../../scripts/deployment/upgradeWallets";
import {
  KernelAccount21__factory,
  KernelAccountCreator__factory,
  KernelAccountFactory__factory,
  KernelAccount__factory,
  OwnerAccount__factory,
  TestImmutableKeyOwner__factory,
  type TestTarget,
  TestTarget__factory,
} from "../../typechain-types";
import { type AltoBundler, startAltoBundler } from "../helpers/altoBundler";
import { type ServiceChain } from "../helpers/chainWithTarget";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";
import { onPostgres } from "../helpers/testDatabase";
import { buildUserOp, signUserOp } from "../helpers/userOps";

/** Gas of the operations a wallet's own key sends: generous, a preVerificationGas above what alto computes. */
const GAS = {
  verificationGasLimit: 600_000n,
  callGasLimit: 200_000n,
  preVerificationGas: 100_000n,
  maxPriorityFeePerGas: 2_000_000_000n,
  maxFeePerGas: 20_000_000_000n,
};
const kernel = KernelAccount__factory.createInterface();

/** One JSON-RPC call; resolves the answer's result or its error, whichever it has. */
async function rpc(url: string, method: string, params: unknown[]) {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await answer.json()) as { result?: unknown; error?: { code: number; message: string } };
}

// The chain, the bundler and the service are the test's own; its database is the lane's, but what it checks is the
// bundler's rules: it runs in the SQLite lane only, as the PostgreSQL lane would run the very same thing again.
describe("A public ERC-7562 bundler (e2e: alto 0.0.18 in safe mode on anvil as the service's BUNDLER_URL_LOCALHOST)", function () {
  this.timeout(180_000);
  let setup: ServiceChain;
  let target: TestTarget;
  let admin: JsonRpcSigner;
  let alto: AltoBundler;
  let service: ServiceProcess;
  let requests: ReturnType<typeof serviceRequests>;

  before(async function () {
    if (onPostgres()) this.skip();
    setup = await prepareServiceOnChain({ chainKind: "anvil" });
    admin = await setup.chain.provider.getSigner(0);
    target = await new TestTarget__factory(admin).deploy();
    await target.waitForDeployment();
    alto = await startAltoBundler(setup.chain.rpcUrl, { entryPoint: setup.deployment.contracts.entryPoint });
    // Alto traces every operation it is sent (ERC-7562): on a loaded machine an answer takes seconds, more than the
    // tests' usual 2 s RPC timeout, after which the service would count a send as not taken.
    service = await startServiceProcess(
      // One of our operations at alto at a time: 0.0.18 validates an operation on top of the others under its
      // paymaster and blames it for their storage ("unstaked account accessed <the other wallet>"), then drops it.
      setup.env(setup.chain.rpcUrl, {
        BUNDLER_URL_LOCALHOST: alto.url,
        BUNDLER_MAX_PENDING_LOCALHOST: "1",
        RPC_TIMEOUT_MS: "30000",
      }),
    );
    requests = serviceRequests(service.url, setup.appToken, setup.userToken);
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed" && alto) console.log(`alto's log:\n${alto.log()}`);
  });
  after(async () => {
    await service?.kill();
    await alto?.stop();
    await setup?.chain.close();
  });

  const contracts = () => setup.deployment.contracts;
  /** The request once final: alto validates, traces and bundles on its own clock, slower on a loaded machine. */
  const finalOf = (id: string) => requests.final(id, 15);
  const record = (n: number) => ({
    to: target.target as string,
    data: target.interface.encodeFunctionData("record", [n]),
  });
  const walletOf = (userId: string) => deriveWalletAddress(contracts().kernelFactory, "kernel", parseUserId(userId));
  /** Polls alto for the operation's receipt until it has one or 90 s pass. */
  const receiptOf = async (hash: string) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { result } = await rpc(alto.url, "eth_getUserOperationReceipt", [hash]);
      if (result) return result as { success: boolean; sender: string };
      if (Date.now() > deadline) throw new Error(`operation ${hash} not included within 90 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it("a custodial wallet's first operation (not deployed yet) is accepted and included: the creator starts it on 2.1", async () => {
    const userId = "tel:14155550701";
    expect(await setup.chain.provider.getCode(walletOf(userId))).to.equal("0x");
    const final = await finalOf(await requests.submit(userId, [record(701)]));
    expect(final).to.include({ status: "included", success: true });
    const receipt = await receiptOf(final.userOpHash!);
    expect(receipt.success).to.equal(true);
    const wallet = KernelAccount21__factory.connect(walletOf(userId), setup.chain.provider);
    expect(await wallet.implementation()).to.equal(contracts().kernelCurrentImplementation);
    expect(await wallet.accountId()).to.equal("idwallet.kernel.2.1.0");
  });

  it("a deployed custodial wallet's operations, several at once, each under a custody root, are each accepted and included", async () => {
    const ids = await Promise.all(
      ["tel:14155550701", "tel:14155550702", "tel:14155550703"].map((u, i) => requests.submit(u, [record(710 + i)])),
    );
    const finals = await Promise.all(ids.map((id) => finalOf(id)));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });
    // Custody signed roots, not operations: no userOperation or sponsorship signature at all, none for a simulation.
    const database = await openDatabase(setup.database);
    try {
      const purposes: string[] = [];
      for await (const row of createRepositories(database.db, () => new Date()).auditLog.rows()) {
        purposes.push(row.purpose);
      }
      expect(purposes).to.include("custodyRoot");
      expect(purposes.filter((p) => p === "userOperation" || p === "sponsorship")).to.deep.equal([]);
    } finally {
      await database.close();
    }
  });

  it("a wallet left on 2.0.0 is refused by the bundler (STO-021, failed for good); moved to 2.1 by upgrade-wallets, it is accepted", async () => {
    const userId = "tel:14155550720";
    // Someone creates the wallet through the frozen factory directly: it starts on 2.0.0.
    const salt = walletSalt("kernel", parseUserId(userId));
    const factory = KernelAccountFactory__factory.connect(contracts().kernelFactory, admin);
    await (await factory.createAccount(salt)).wait();
    const refused = await finalOf(await requests.submit(userId, [record(720)]));
    expect(refused.status).to.equal("failed");
    expect(refused.error?.message).to.match(/unstaked account accessed/);
    const plan = await planWalletUpgrade(setup.chain.provider, {
      factory: contracts().kernelFactory,
      ownerAccount: contracts().ownerAccount,
      type: "kernel",
      implementation: contracts().kernelCurrentImplementation,
      userIds: [userId],
    });
    await sendWalletUpgrade(admin, plan);
    const moved = await finalOf(await requests.submit(userId, [record(721)]));
    expect(moved).to.include({ status: "included", success: true });
  });

  /** Creates `label`'s wallet on 2.1 through the creator, hands it to `owner` (through the creator) and funds it. */
  const handedOver = async (label: string, owner: string) => {
    const salt = walletSalt("kernel", parseUserId(`github:${label}`));
    const creator = KernelAccountCreator__factory.connect(contracts().kernelCreator, admin);
    await (await creator.createAccount(salt)).wait();
    const data = OwnerAccount__factory.createInterface().encodeFunctionData("transferWalletOwnership", [
      contracts().kernelFactory,
      salt,
      owner,
    ]);
    const route = await adminRoute(setup.chain.provider, contracts().ownerAccount, data);
    await (await admin.sendTransaction({ to: route.to, data: route.data })).wait();
    const wallet = await creator.walletAddress(salt);
    await (await admin.sendTransaction({ to: wallet, value: parseEther("1") })).wait();
    return wallet;
  };
  /** `wallet`'s own operation (no paymaster: it pays), signed by `signer`, sent to alto; included or thrown. */
  const ownOperation = async (wallet: string, signer: Signer, n: number) => {
    const { entryPoint } = contracts();
    const { chainId } = await setup.chain.provider.getNetwork();
    const op = buildUserOp(
      {
        sender: wallet,
        nonce: 0n,
        callData: kernel.encodeFunctionData("execute", [target.target, 0n, record(n).data, 0]),
      },
      GAS,
    );
    const signed = await signUserOp(op, signer, entryPoint, chainId);
    const answer = await rpc(alto.url, "eth_sendUserOperation", [toRpcUserOperation(signed), entryPoint]);
    expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
    const receipt = await receiptOf(userOperationHash(signed, entryPoint, chainId));
    expect(receipt.success).to.equal(true);
    expect(receipt.sender.toLowerCase()).to.equal(wallet.toLowerCase());
  };

  it("a 2.1 wallet handed over to an EOA: its owner's own operation is accepted and included (no EXTCODESIZE on the EOA)", async () => {
    const owner = Wallet.createRandom();
    await ownOperation(await handedOver("public-bundler-eoa", owner.address), owner, 730);
  });

  it("a 2.1 wallet handed over to a contract owner whose key is an immutable: accepted and included", async () => {
    const key = Wallet.createRandom();
    const owner = await new TestImmutableKeyOwner__factory(admin).deploy(key.address);
    await owner.waitForDeployment();
    await ownOperation(await handedOver("public-bundler-contract", await owner.getAddress()), key, 731);
  });
});
