import { expect } from "chai";
import { Wallet, parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { KernelAccount__factory, TestFlakyValidationAccount__factory, type TestTarget } from "../../typechain-types";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type ProxyDecision, type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { revertedTransactionsOf } from "../helpers/relayerHistory";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { ownerAccountAdmin } from "../helpers/ownerAccountAdmin";
import { serviceRequests } from "../helpers/serviceRequests";

/** How long the attacker's request is given to end; today's code reverts bundle after bundle all that time. */
const ATTACK_WINDOW_MS = 15_000;

describe("Wallets handed to their user's key (e2e: the built-in bundler builds only for the operator's custodian)", function () {
  this.timeout(180_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  const proxies: RpcProxy[] = [];

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, proxies));

  const walletOf = (userId: string) =>
    deriveWalletAddress(setup.deployment.contracts.kernelFactory, "kernel", parseUserId(userId));
  /** The operator's cold admin hands `userId`'s wallet to `key` (OwnerAccount.transferWalletOwnership). */
  const handOver = async (userId: string, key: string) => {
    const c = setup.deployment.contracts;
    const admin = await setup.chain.provider.getSigner(0);
    const owner = ownerAccountAdmin(admin, c.ownerAccount);
    await (await owner.transferWalletOwnership(c.kernelFactory, walletSalt("kernel", parseUserId(userId)), key)).wait();
  };
  const record = (n: number) => target.interface.encodeFunctionData("record", [n]);
  const start = async (rpcUrl = setup.chain.rpcUrl) => {
    const service = await startServiceProcess(setup.env(rpcUrl, { TX_RETRY_DELAY_MS: "200" }));
    running.push(service);
    return serviceRequests(service.url, setup.appToken, setup.userToken);
  };
  /** Polls until the request is final or `ms` pass; returns its last view. */
  const settledWithin = async (requests: ReturnType<typeof serviceRequests>, id: string, ms: number) => {
    const deadline = Date.now() + ms;
    let view = await requests.view(id);
    while (!["included", "failed"].includes(view.status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      view = await requests.view(id);
    }
    return view;
  };

  it("a user whose wallet was handed over upgrades it to code that passes eth_call and reverts on chain, posing as custodial: no bundle reverts, the request fails WALLET_NOT_CUSTODIAL", async () => {
    const c = setup.deployment.contracts;
    const mallory = "tel:14155557001";
    const bystander = "tel:14155557002";
    const key = Wallet.createRandom().connect(setup.chain.provider);
    const admin = await setup.chain.provider.getSigner(0);
    await (await admin.sendTransaction({ to: key.address, value: parseEther("1") })).wait();
    await handOver(mallory, key.address);
    // Now governed by the user's key alone: it moves the wallet to code of its own, which claims the custodian as
    // owner and clears the owner slot, and whose validation passes every eth_call and fails every mined bundle.
    const flaky = await new TestFlakyValidationAccount__factory(admin).deploy(c.entryPoint, c.ownerAccount);
    const wallet = KernelAccount__factory.connect(walletOf(mallory), key);
    const init = flaky.interface.encodeFunctionData("initialize", [key.address]);
    await (await wallet.upgradeToAndCall(await flaky.getAddress(), init)).wait();
    expect(await wallet.owner()).to.equal(c.ownerAccount);

    const requests = await start();
    const attack = await requests.submit(mallory, [{ to: await target.getAddress(), data: record(1) }]);
    const honest = await requests.submit(bystander, [{ to: await target.getAddress(), data: record(2) }]);
    const ended = await settledWithin(requests, attack, ATTACK_WINDOW_MS);
    const reverted = await revertedTransactionsOf(setup.chain.provider, setup.relayer);
    expect(reverted, "the relayer's reverted bundles").to.deep.equal([]);
    expect(ended.status).to.equal("failed");
    expect(ended.error?.code).to.equal("WALLET_NOT_CUSTODIAL");
    // Caught by the code it runs: its owner slot and its owner() both say the custodian.
    expect(ended.error?.message).to.contain(await flaky.getAddress());
    expect(ended.transactionHash).to.equal(null);
    expect(await requests.final(honest)).to.include({ status: "included", success: true });
  });

  it("a wallet handed to its user's key, on the operator's own code, is not built for either: WALLET_NOT_CUSTODIAL, nothing sent", async () => {
    const user = "tel:14155557003";
    // Created by the hand-over, so its code is deployed and it still runs the first implementation.
    await handOver(user, Wallet.createRandom().address);
    const requests = await start();
    const id = await requests.submit(user, [{ to: await target.getAddress(), data: record(3) }]);
    const ended = await requests.final(id);
    expect(ended.status).to.equal("failed");
    expect(ended.error?.code).to.equal("WALLET_NOT_CUSTODIAL");
    expect(await revertedTransactionsOf(setup.chain.provider, setup.relayer)).to.deep.equal([]);
  });

  it("the operator's admin hands a wallet over between its operation's simulation and the broadcast: caught before broadcast, WALLET_NOT_CUSTODIAL, nothing reverts", async () => {
    const user = "tel:14155557004";
    let armed = false;
    let simulated = false;
    let handOff: Promise<void> | undefined;
    const proxy = await startRpcProxy(setup.chain.rpcUrl, async (method, params): Promise<ProxyDecision> => {
      const call = JSON.stringify(params).toLowerCase();
      // The simulation of the armed request: an eth_call to the BundleSimulator naming the wallet.
      if (
        armed &&
        method === "eth_call" &&
        call.includes("0b5e4d1e") &&
        call.includes(walletOf(user).slice(2).toLowerCase())
      )
        simulated = true;
      // The next block-number read (the pre-broadcast look at the blocks since) waits for the admin's hand-over.
      if (simulated && method === "eth_blockNumber") handOff ??= handOver(user, Wallet.createRandom().address);
      if (handOff !== undefined) await handOff;
      return "forward";
    });
    proxies.push(proxy);
    const requests = await start(proxy.url);
    // Deployed by a first request, so that the second is built without initCode (the hand-over does not create it).
    const first = await requests.submit(user, [{ to: await target.getAddress(), data: record(4) }]);
    expect(await requests.final(first)).to.include({ status: "included", success: true });
    armed = true;
    const second = await requests.submit(user, [{ to: await target.getAddress(), data: record(5) }]);
    const ended = await requests.final(second);
    expect(handOff, "the wallet was handed over between simulation and broadcast").to.not.equal(undefined);
    // Not WALLET_SIGNATURE_INVALID, which the bundle check against the chain would have answered.
    expect(ended.status).to.equal("failed");
    expect(ended.error?.code).to.equal("WALLET_NOT_CUSTODIAL");
    expect(await revertedTransactionsOf(setup.chain.provider, setup.relayer)).to.deep.equal([]);
  });
});
