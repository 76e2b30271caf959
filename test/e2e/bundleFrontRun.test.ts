import { expect } from "chai";
import { Transaction, dataLength, dataSlice } from "ethers";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;

describe("Bundle front-run by an outsider watching the mempool (e2e)", function () {
  this.timeout(120_000);
  let setup: Setup;
  let target: TestTarget;
  let proxy: RpcProxy;
  let service: ServiceProcess;
  let frontRuns = 0;
  /** The relayer's bundles the outsider front-ran: they revert, and their gas is charged to no request. */
  const frontRunBundles: string[] = [];
  let attacking = false;

  /**
   * The outsider: on each bundle the relayer broadcasts, before it reaches the node, deploys the first wallet the
   * bundle was about to create (anyone may call the factory), so that the bundle reverts on chain with AA10.
   */
  const frontRun = async (method: string, params: unknown[]) => {
    if (!attacking || method !== "eth_sendRawTransaction") return "forward" as const;
    const tx = Transaction.from(params[0] as string);
    const [ops] = entryPointInterface.decodeFunctionData("handleOps", tx.data);
    const creating = (ops as { initCode: string }[]).find((op) => dataLength(op.initCode) > 20);
    if (creating) {
      const outsider = await setup.chain.provider.getSigner(7);
      const deploy = await outsider.sendTransaction({
        to: dataSlice(creating.initCode, 0, 20),
        data: dataSlice(creating.initCode, 20),
      });
      await deploy.wait();
      frontRuns++;
      frontRunBundles.push(tx.hash!);
    }
    return "forward" as const;
  };

  before(async () => {
    setup = await prepareServiceOnChain();
    target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    proxy = await startRpcProxy(setup.chain.rpcUrl, frontRun);
    service = await startServiceProcess(setup.env(proxy.url, { TX_MAX_ATTEMPTS: "3", TX_RETRY_DELAY_MS: "200" }));
  });
  after(async () => {
    await service.kill();
    await proxy.close();
    await setup.chain.close();
  });

  it("costs no innocent request an attempt: every request ends included, each charged for its own send only", async () => {
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const to = await target.getAddress();
    const call = (n: number) => [{ to, data: target.interface.encodeFunctionData("record", [n]) }];
    // Five users whose wallets exist already (one request each, before the outsider starts).
    const settled = ["14155550301", "14155550302", "14155550303", "14155550304", "14155550305"].map((p) => `tel:${p}`);
    for (const id of await Promise.all(settled.map(async (u, i) => requests.submit(u, call(i))))) {
      expect(await requests.final(id)).to.include({ status: "included", success: true });
    }

    // Now every bundle that creates a wallet is front-run. Three new users: at least three bundles revert, more
    // than TX_MAX_ATTEMPTS allows, so the old accounting (every send an attempt) would fail every request here.
    attacking = true;
    const fresh = ["14155550311", "14155550312", "14155550313"].map((p) => `tel:${p}`);
    const ids = await Promise.all([...fresh, ...settled].map(async (u, i) => requests.submit(u, call(100 + i))));
    const finals = await Promise.all(ids.map((id) => requests.final(id)));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });
    expect(frontRuns, "bundles the outsider made revert").to.be.at.least(3);

    // Each request was charged exactly its one send that landed.
    const database = await openDatabase(setup.database);
    try {
      const repository = createRepositories(database.db, () => new Date()).transactions;
      const attempts = await Promise.all(ids.map(async (id) => (await repository.find(id))!.attempts));
      expect(attempts).to.deep.equal(ids.map(() => 1));
    } finally {
      await database.close();
    }

    // The relayer's loss is not lost from sight: /metrics shows the gas of every bundle that reverted.
    const receipts = await Promise.all(frontRunBundles.map((h) => setup.chain.provider.getTransactionReceipt(h)));
    const reverted = receipts.filter((r) => r !== null && r.status === 0);
    expect(reverted.length, "front-run bundles that reverted").to.be.at.least(3);
    const burned = reverted.reduce((sum, r) => sum + r!.gasUsed, 0n);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).to.include(`idwallet_relayer_reverted_gas_total{chain="localhost"} ${burned}\n`);
  });
});
