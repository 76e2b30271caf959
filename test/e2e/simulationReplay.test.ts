import { expect } from "chai";
import { Contract, concat } from "ethers";
import { entryPointInterface, nonceKey, opTuple } from "../../gateway/userop/entryPoint";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { type RpcProxy, startRpcProxy } from "../helpers/rpcProxy";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";
import { simulatedOps } from "../helpers/simulatedOps";

describe("Simulation replay (e2e: an outsider who watches the node's calls replays a failed request's simulation)", function () {
  this.timeout(120_000);
  let setup: Awaited<ReturnType<typeof prepareServiceOnChain>>;
  let target: TestTarget;
  let service: ServiceProcess | undefined;
  let proxy: RpcProxy | undefined;

  beforeEach(async () => {
    setup = await prepareServiceOnChain();
    target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
  });
  afterEach(async () => {
    await service?.kill();
    await proxy?.close();
    await setup.chain.close();
  });

  it("a request reported failed before anything was sent can never be included from what the node saw", async () => {
    // The node answers every simulation carrying this request "execution reverted" without data, so the request
    // fails (SIMULATION_FAILED) without a build ever being sent; the proxy keeps what the node was shown.
    const marker = "dead0fdead0fdead0fdead0f";
    proxy = await startRpcProxy(setup.chain.rpcUrl, (method, params) =>
      method === "eth_call" && JSON.stringify(params).includes(marker) ? "revert" : "forward",
    );
    service = await startServiceProcess(
      setup.env(proxy.url, { TX_MAX_ATTEMPTS: "2", TX_RETRY_DELAY_MS: "200", RPC_TIMEOUT_MS: "1000" }),
    );
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const data = concat([target.interface.encodeFunctionData("record", [8]), `0x${marker}`]);
    const id = await requests.submit("tel:14155557001", [{ to: await target.getAddress(), data }]);
    const final = await requests.final(id);
    expect(final).to.include({ status: "failed" });
    expect(final.error?.code).to.equal("SIMULATION_FAILED");

    // Every operation of this request the node was shown: each one the outsider sends is refused. The wallet is new, on
    // code 2.1: its simulation carries no custody signature, only a throwaway key's, which the paymaster refuses.
    const seen = simulatedOps(proxy.seen).filter((op) => op.callData.includes(marker));
    expect(seen.length).to.be.greaterThan(0);
    const outsider = await setup.chain.provider.getSigner(9);
    const entryPoint = new Contract(setup.deployment.contracts.entryPoint, entryPointInterface, outsider);
    for (const op of seen) {
      await expect(
        entryPoint.getFunction("handleOps")([opTuple(op)], await outsider.getAddress(), { gasLimit: 10_000_000 }),
      )
        .to.be.revertedWithCustomError(entryPoint, "FailedOp")
        .withArgs(0, "AA34 signature error");
    }
    // Its nonce is unused: nothing of it ran, and "failed" stands.
    const nonce = seen[0]!.nonce;
    expect(await entryPoint.getFunction("getNonce")(final.sender, nonceKey(nonce))).to.equal(nonce);
    expect((await requests.view(id)).status).to.equal("failed");
  });
});
