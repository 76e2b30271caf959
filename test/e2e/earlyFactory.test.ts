import { expect } from "chai";
import { Wallet, parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { IDWALLET_SALT, creationCode } from "../../scripts/deployment/deployIdwallet";
import {
  deployDeterministic,
  deterministicAddress,
  ensureDeterministicDeployer,
} from "../../scripts/deployment/deterministic";
import { ENTRY_POINT_ARTIFACT, ENTRY_POINT_V07_SALT } from "../../scripts/deployment/entryPoint";
import { devKey } from "../../scripts/localStack/devKeys";
import {
  KernelAccountFactory__factory,
  KernelAccount__factory,
  OwnerAccount__factory,
  TestToken__factory,
} from "../../typechain-types";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;

describe("An outsider deploys the wallet factory on a new chain before the owner account (e2e)", function () {
  this.timeout(120_000);
  const victim = parseUserId("tel:14155550177");
  let setup: Setup;
  let service: ServiceProcess | undefined;
  let early: { factory: string; wallet: string; ownerAccount: string; token: string };

  before(async () => {
    setup = await prepareServiceOnChain({
      // On the empty chain, the attacker goes first: EntryPoint and our factory through the public deployment
      // proxy (anyone can: the creation code and salt are public), then the victim's wallet, before the operator
      // has deployed the owner account the factory names.
      beforeDeploy: async (chain) => {
        const attacker = await chain.provider.getSigner(7);
        await ensureDeterministicDeployer(chain.provider);
        const admin = new Wallet(devKey(0)).address;
        const ownerAccount = deterministicAddress(creationCode(OwnerAccount__factory, admin), IDWALLET_SALT);
        const entryPoint = await deployDeterministic(attacker, ENTRY_POINT_ARTIFACT.bytecode, ENTRY_POINT_V07_SALT);
        const { address: factory } = await deployDeterministic(
          attacker,
          creationCode(KernelAccountFactory__factory, entryPoint.address, ownerAccount),
          IDWALLET_SALT,
        );
        await (
          await KernelAccountFactory__factory.connect(factory, attacker).createAccount(walletSalt("kernel", victim))
        ).wait();
        const wallet = deriveWalletAddress(factory, "kernel", victim);
        // Someone pays the victim at the "same on every chain" address, in coin and in a token.
        const token = await new TestToken__factory(attacker).deploy();
        await (await token.mint(wallet, 500n)).wait();
        await (await attacker.sendTransaction({ to: wallet, value: parseEther("2") })).wait();
        early = { factory, wallet, ownerAccount, token: await token.getAddress() };
      },
    });
  });
  after(async () => {
    await service?.kill();
    await setup.chain.close();
  });

  it("leaves the wallet created early owned by the owner account that did not exist yet", async () => {
    const provider = setup.chain.provider;
    // The operator's deployment found the attacker's factory in place and used it: same addresses as everywhere.
    expect(setup.deployment.contracts.kernelFactory).to.equal(early.factory);
    expect(setup.deployment.contracts.ownerAccount).to.equal(early.ownerAccount);
    expect(await provider.getCode(early.wallet)).to.not.equal("0x");
    const account = KernelAccount__factory.connect(early.wallet, provider);
    expect(await account.owner()).to.equal(early.ownerAccount);
    expect(await account.implementation()).to.equal(setup.deployment.contracts.kernelImplementation);
  });

  it("lets the operator move the funds sent there once the owner account is deployed", async () => {
    const provider = setup.chain.provider;
    service = await startServiceProcess(setup.env(setup.chain.rpcUrl));
    const recovery = Wallet.createRandom().address;
    const token = TestToken__factory.connect(early.token, provider);
    const userId = "tel:14155550177";
    const res = await fetch(`${service.url}/v1/kernel/tx`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${setup.appToken}` },
      body: JSON.stringify({
        userId,
        chain: "localhost",
        to: [recovery, early.token],
        value: [parseEther("1.5").toString(), "0"],
        data: ["0x", token.interface.encodeFunctionData("transfer", [recovery, 500n])],
        auth: await setup.userToken(userId),
      }),
    });
    expect(res.status).to.equal(202);
    const { id } = (await res.json()) as { id: string };
    let final: { status: string; success: boolean | null } = { status: "queued", success: null };
    for (let i = 0; i < 5 && !["included", "failed"].includes(final.status); i++) {
      const answer = await fetch(`${service.url}/v1/kernel/tx/${id}?wait=true`, {
        headers: { Authorization: `Bearer ${setup.appToken}` },
      });
      final = (await answer.json()) as typeof final;
    }
    expect(final).to.include({ status: "included", success: true });
    expect(await provider.getBalance(recovery)).to.equal(parseEther("1.5"));
    expect(await token.balanceOf(recovery)).to.equal(500n);
  });
});
