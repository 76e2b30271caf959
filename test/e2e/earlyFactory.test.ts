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
import { serviceRequests } from "../helpers/serviceRequests";

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
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const id = await requests.submit(userId, [
      { to: recovery, value: parseEther("1.5"), data: "0x" },
      { to: early.token, data: token.interface.encodeFunctionData("transfer", [recovery, 500n]) },
    ]);
    const final = await requests.final(id);
    expect(final).to.include({ status: "included", success: true });
    expect(await provider.getBalance(recovery)).to.equal(parseEther("1.5"));
    expect(await token.balanceOf(recovery)).to.equal(500n);
  });
});
