import { expect } from "chai";
import { chainNodeKind, startChainNode } from "../../scripts/localStack/chainNode";

/** The deterministic deployment proxy every chain the contracts deploy to needs (design §1.2). */
const DEPLOYMENT_PROXY = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

describe("The local chain on anvil (CHAIN_NODE=anvil)", function () {
  this.timeout(60_000);

  it("serves chain 31337 with the deployment proxy and funded dev accounts, in a process that ends on close", async () => {
    const node = await startChainNode("127.0.0.1", 0, { kind: "anvil" });
    const pid = node.pid!;
    try {
      expect(node.kind).to.equal("anvil");
      expect((await node.provider.getNetwork()).chainId).to.equal(31337n);
      expect(await node.provider.getCode(DEPLOYMENT_PROXY)).to.not.equal("0x");
      const [first] = (await node.provider.send("eth_accounts", [])) as string[];
      expect(await node.provider.getBalance(first!)).to.be.greaterThan(0n);
    } finally {
      await node.close();
    }
    expect(() => process.kill(pid, 0), "anvil's process ended").to.throw();
  });

  it("reads CHAIN_NODE: unset is Hardhat; a name it does not know is refused", () => {
    expect(chainNodeKind(undefined)).to.equal("hardhat");
    expect(chainNodeKind("anvil")).to.equal("anvil");
    expect(() => chainNodeKind("ganache")).to.throw(/CHAIN_NODE must be hardhat or anvil/);
  });
});
