import { expect } from "chai";
import { Transaction, Wallet, getAddress } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { KernelAccountFactory__factory, TestTarget__factory, type TestTarget } from "../../typechain-types";
import { type ProxyDecision, type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { revertedTransactionsOf } from "../helpers/relayerHistory";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";
import { storedRequests } from "../helpers/storedRequests";
import { devKey } from "../../scripts/localStack/devKeys";
import { ownerAccountAdmin } from "../helpers/ownerAccountAdmin";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
type Decide = (method: string, params: unknown[]) => ProxyDecision | Promise<ProxyDecision>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Griefing the bundler from the mempool (e2e: an outsider, or our own bundles, change the chain under it)", function () {
  this.timeout(120_000);
  let setup: Setup;
  let target: TestTarget;
  let proxy: RpcProxy | undefined;
  let service: ServiceProcess | undefined;
  let nextPhone = 14155570000;

  const user = () => `tel:${nextPhone++}`;
  const walletOf = (userId: string) =>
    deriveWalletAddress(setup.deployment.contracts.kernelFactory, "kernel", parseUserId(userId));
  const record = (n: number) => target.interface.encodeFunctionData("record", [n]);
  const stored = () => storedRequests(setup.database, setup.deployment.contracts.kernelFactory);
  /** Starts the service behind a proxy that lets `decide` act on each JSON-RPC request first. */
  const start = async (decide: Decide, extra: Record<string, string> = {}) => {
    proxy = await startRpcProxy(setup.chain.rpcUrl, decide);
    service = await startServiceProcess(
      setup.env(proxy.url, { TX_MAX_ATTEMPTS: "3", TX_RETRY_DELAY_MS: "200", ...extra }),
    );
    return serviceRequests(service.url, setup.appToken, setup.userToken);
  };
  /** Whether a JSON-RPC request mentions `address` (an eth_call's data holds it without 0x, in lower case). */
  const mentions = (params: unknown[], address: string) =>
    JSON.stringify(params).toLowerCase().includes(address.slice(2).toLowerCase());

  beforeEach(async () => {
    setup = await prepareServiceOnChain();
    target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
  });
  afterEach(async () => {
    await service?.kill();
    await proxy?.close();
    service = undefined;
    proxy = undefined;
    await setup.chain.close();
  });

  it("an outsider who submits one of a bundle's operations itself, ahead of the bundle, gets it recorded as theirs and costs nobody an attempt", async () => {
    // Wallets that exist already: the copied operation has no initCode, so the bundle reverts at its nonce (AA25).
    const users = [user(), user(), user(), user()];
    const factory = KernelAccountFactory__factory.connect(
      setup.deployment.contracts.kernelFactory,
      await setup.chain.provider.getSigner(0),
    );
    for (const u of users) await (await factory.createAccount(walletSalt("kernel", parseUserId(u)))).wait();
    const ids: string[] = [];
    for (const [i, u] of users.entries()) ids.push(await stored().store(u, await target.getAddress(), record(i)));

    // The outsider: on the first bundle of several operations the relayer broadcasts, copies its second operation
    // and runs it through the EntryPoint from its own account (collecting its refund), mined before the bundle.
    const outsider = await setup.chain.provider.getSigner(7);
    let copied: { sender: string; hash: string } | undefined;
    const requests = await start(async (method, params): Promise<ProxyDecision> => {
      if (method !== "eth_sendRawTransaction" || copied) return "forward";
      const tx = Transaction.from(params[0] as string);
      if (tx.to !== getAddress(setup.deployment.contracts.entryPoint)) return "forward";
      const [ops] = entryPointInterface.decodeFunctionData("handleOps", tx.data) as unknown as [{ sender: string }[]];
      if (ops.length < 2) return "forward";
      const own = await outsider.sendTransaction({
        to: tx.to,
        data: entryPointInterface.encodeFunctionData("handleOps", [[ops[1]], await outsider.getAddress()]),
      });
      await own.wait();
      copied = { sender: getAddress(ops[1]!.sender), hash: own.hash };
      return "forward";
    });

    const finals = await Promise.all(ids.map((id) => requests.final(id)));
    expect(copied, "the outsider copied an operation").to.not.equal(undefined);
    for (const final of finals) expect(final).to.include({ status: "included", success: true });
    // The copied operation's request is recorded with the transaction that ran it: the outsider's.
    const victim = finals.find((final) => getAddress(final.sender) === copied!.sender)!;
    expect(victim.transactionHash).to.equal(copied!.hash);
    for (const final of finals.filter((f) => f !== victim)) expect(final.transactionHash).to.not.equal(copied!.hash);
    // Nobody was charged for the bundle the outsider made revert: each request counts its one send.
    expect(await stored().attempts(ids)).to.deep.equal(ids.map(() => 1));
    // The relayer's loss is that one reverted bundle; the next was checked against the chain and went through.
    expect(await revertedTransactionsOf(setup.chain.provider, setup.relayer)).to.have.length(1);
  });

  it("a bundle whose operation deploys a wallet the next bundle creates costs the relayer no reverted bundle and that user no attempt", async () => {
    // App A's calls deploy user B's wallet (anyone may call the factory). With one operation per bundle, B's first
    // request is prepared, with initCode, while A's bundle is in flight; once A's is mined only our own bundle came
    // since B's simulation, yet B's wallet exists now and its initCode would make the EntryPoint stop at AA10.
    const a = user();
    const b = user();
    const createB = KernelAccountFactory__factory.createInterface().encodeFunctionData("createAccount", [
      walletSalt("kernel", parseUserId(b)),
    ]);
    const aId = await stored().store(a, setup.deployment.contracts.kernelFactory, createB);
    const bId = await stored().store(b, await target.getAddress(), record(77));

    let bSimulated: () => void = () => undefined;
    const bSimulation = new Promise<void>((resolve) => (bSimulated = resolve));
    const requests = await start(
      async (method, params): Promise<ProxyDecision> => {
        if (method === "eth_call" && mentions(params, walletOf(b))) bSimulated();
        // A's bundle reaches the node only once B's operation was simulated (B's wallet still without code).
        if (method === "eth_sendRawTransaction" && mentions(params, walletOf(a))) {
          await Promise.race([bSimulation, sleep(10_000)]);
          await sleep(300);
        }
        return "forward";
      },
      { TX_MAX_OPS_PER_BUNDLE: "1" },
    );

    expect(await requests.final(aId)).to.include({ status: "included", success: true });
    expect(await requests.final(bId)).to.include({ status: "included", success: true });
    expect(await stored().attempts([aId, bId])).to.deep.equal([1, 1]);
    expect(await revertedTransactionsOf(setup.chain.provider, setup.relayer)).to.deep.equal([]);
  });

  it("a foreign transaction mined between a simulation and its broadcast (the admin removes the wallet signer) is caught before broadcast", async () => {
    const c = user();
    const cId = await stored().store(c, await target.getAddress(), record(5));
    const admin = await setup.chain.provider.getSigner(0);
    const owner = ownerAccountAdmin(admin, setup.deployment.contracts.ownerAccount);
    let simulated = false;
    let removed = false;
    let removal: Promise<unknown> | undefined;
    const requests = await start(async (method, params): Promise<ProxyDecision> => {
      if (method === "eth_call" && mentions(params, walletOf(c))) simulated = true;
      // The first block-number read after the simulation (the pre-broadcast look at the blocks since, or the
      // preparation of the next bundle beside it) waits for the admin's transaction to be mined, and so does every
      // request after it: whichever read the check makes sees the foreign block.
      if (method === "eth_blockNumber" && simulated && removal === undefined) {
        removal = owner.removeSigner(new Wallet(devKey(1)).address).then(async (tx) => {
          await tx.wait();
          removed = true;
        });
      }
      if (removal !== undefined) await removal;
      return "forward";
    });

    // The check's eth_call showed the node a real, signed build, which anyone could still execute until its
    // sponsorship ends (were the signer added back): the request carries the final code at once, but is reported
    // failed only once that build can no longer run.
    let view = await requests.view(cId);
    for (let i = 0; i < 100 && view.error?.code === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = await requests.view(cId);
    }
    expect(removed, "the signer was removed between simulation and broadcast").to.equal(true);
    expect(view).to.include({ status: "queued" });
    expect(view.error?.code).to.equal("WALLET_SIGNATURE_INVALID");
    // Caught by the check before broadcast: the relayer sent nothing that reverted.
    expect(await revertedTransactionsOf(setup.chain.provider, setup.relayer)).to.deep.equal([]);
  });
});
