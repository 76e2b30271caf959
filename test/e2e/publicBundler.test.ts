import { expect } from "chai";
import { AbiCoder, type JsonRpcSigner, type Signer, Wallet, id, keccak256, parseEther, toBeHex } from "ethers";
import type { Deployment } from "../../scripts/deployment/deployIdwallet";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { type ChainNode, startChainNode } from "../../scripts/localStack/chainNode";
import { devKey } from "../../scripts/localStack/devKeys";
import { type PackedUserOperation, packInitCode, userOperationHash } from "../../gateway/userop/packedUserOperation";
import { toRpcUserOperation } from "../../gateway/userop/rpcUserOperation";
import { entryPointInterface, opTuple } from "../../gateway/userop/entryPoint";
import {
  KernelAccountFactory__factory,
  KernelAccount__factory,
  OwnerAccount__factory,
  SponsorPaymaster__factory,
  TestImmutableKeyOwner__factory,
} from "../../typechain-types";
import { type AltoBundler, startAltoBundler } from "../helpers/altoBundler";
import { onPostgres } from "../helpers/testDatabase";
import { buildUserOp, signUserOp, sponsorUserOp } from "../helpers/userOps";

/** ERC-4337's JSON-RPC code for an operation that breaks an ERC-7562 opcode or storage rule. */
const BANNED_OPCODE_OR_STORAGE = -32502;
/** Gas for every operation here: generous, and a preVerificationGas above what alto computes for them. */
const GAS = {
  verificationGasLimit: 600_000n,
  callGasLimit: 200_000n,
  preVerificationGas: 100_000n,
  maxPriorityFeePerGas: 2_000_000_000n,
  maxFeePerGas: 20_000_000_000n,
};
const kernel = KernelAccount__factory.createInterface();
const factoryInterface = KernelAccountFactory__factory.createInterface();

/** One JSON-RPC call; resolves the answer's result or its error, whichever it has. */
async function rpc(url: string, method: string, params: unknown[]) {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await answer.json()) as RpcAnswer;
}

/** A JSON-RPC answer: a result or an error. */
interface RpcAnswer {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

// The chain and the bundler are the test's own and it starts no service: it runs in the SQLite lane only, where the
// e2e suite runs, as the PostgreSQL lane would run the very same thing again.
describe("A public ERC-7562 bundler (e2e: alto 0.0.18 in safe mode on anvil, sponsored operations)", function () {
  this.timeout(120_000);
  let chain: ChainNode;
  let deployment: Deployment;
  let admin: JsonRpcSigner;
  let alto: AltoBundler;
  const sponsor = new Wallet(devKey(2));
  const custody = new Wallet(devKey(1));

  before(async function () {
    if (onPostgres()) this.skip();
    chain = await startChainNode("127.0.0.1", 0, { kind: "anvil" });
    admin = await chain.provider.getSigner(0);
    deployment = await deployIdwallet(admin, {
      admin: await admin.getAddress(),
      walletSigners: [custody.address],
      sponsorSigners: [sponsor.address],
      paymasterDeposit: parseEther("10"),
    });
    alto = await startAltoBundler(chain.rpcUrl, { entryPoint: deployment.contracts.entryPoint });
  });
  afterEach(function () {
    if (this.currentTest?.state === "failed" && alto) console.log(`alto's log:\n${alto.log()}`);
  });
  after(async () => {
    await alto?.stop();
    await chain?.close();
  });

  /** A kernel wallet's address and salt, named by `label`. */
  const walletFor = async (label: string) => {
    const salt = id(`public bundler: ${label}`);
    const factory = KernelAccountFactory__factory.connect(deployment.contracts.kernelFactory, chain.provider);
    // The factory's own getAddress(salt): ethers' Contract.getAddress() would answer the factory's address.
    return { salt, wallet: (await factory.getFunction("getAddress")(salt)) as string };
  };
  /** The operator's cold admin hands the wallet of `salt` to `owner` (creating it). */
  const handOver = async (salt: string, owner: string) => {
    const ownerAccount = OwnerAccount__factory.connect(deployment.contracts.ownerAccount, admin);
    await (await ownerAccount.transferWalletOwnership(deployment.contracts.kernelFactory, salt, owner)).wait();
  };
  /**
   * `wallet`'s operation (calling the admin with nothing), sponsored by the SponsorPaymaster, signed by `signer`,
   * deploying the wallet by `salt` when given, sent to alto: its answer.
   */
  const send = async (wallet: string, signer: Signer, deploySalt?: string) => {
    const c = deployment.contracts;
    const { chainId } = await chain.provider.getNetwork();
    const op = buildUserOp(
      {
        sender: wallet,
        nonce: 0n,
        callData: kernel.encodeFunctionData("execute", [await admin.getAddress(), 0n, "0x", 0]),
        initCode: deploySalt
          ? packInitCode(c.kernelFactory, factoryInterface.encodeFunctionData("createAccount", [deploySalt]))
          : "0x",
      },
      GAS,
    );
    const now = Math.floor(Date.now() / 1000);
    const terms = {
      paymaster: c.sponsorPaymaster,
      verificationGasLimit: 100_000n,
      postOpGasLimit: 0n,
      validUntil: now + 600,
      validAfter: 0,
    };
    const signed = await signUserOp(await sponsorUserOp(op, terms, sponsor, chainId), signer, c.entryPoint, chainId);
    const answer = await rpc(alto.url, "eth_sendUserOperation", [toRpcUserOperation(signed), c.entryPoint]);
    return { ...answer, hash: userOperationHash(signed, c.entryPoint, chainId), op: signed };
  };
  /**
   * Whether the EntryPoint itself takes `op` (handleOps as an eth_call from the admin): a refusal below is then
   * alto's ERC-7562 rules alone, not a bad signature, sponsorship or gas.
   */
  const validOnChain = async (op: PackedUserOperation) => {
    const data = entryPointInterface.encodeFunctionData("handleOps", [[opTuple(op)], await admin.getAddress()]);
    return chain.provider.call({ from: await admin.getAddress(), to: deployment.contracts.entryPoint, data }).then(
      () => true,
      () => false,
    );
  };
  /** Polls alto for the operation's receipt until it has one or 20 s pass. */
  const receiptOf = async (hash: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { result } = await rpc(alto.url, "eth_getUserOperationReceipt", [hash]);
      if (result) return result as { success: boolean; sender: string };
      if (Date.now() > deadline) throw new Error(`operation ${hash} not included within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /**
   * The storage slot of `_signers[signer]`: slot 2 in OwnerAccount (after Ownable2Step's owner and pending owner),
   * slot 1 in SponsorPaymaster (after Ownable's owner). The tests read it back as `true` on chain.
   */
  const signerSlot = (signer: string, mappingSlot: 1 | 2) =>
    keccak256(AbiCoder.defaultAbiCoder().encode(["address", "uint256"], [signer, mappingSlot]));
  /** Whether `slot` of `contract` holds `true`: the slot named is indeed a live signer's entry. */
  const holdsTrue = async (contract: string, slot: string) =>
    (await chain.provider.getStorage(contract, slot)) === toBeHex(1, 32);
  /** A wallet handed to a TestImmutableKeyOwner, and that owner's key. */
  const immutableKeyWallet = async (label: string) => {
    const key = Wallet.createRandom();
    const owner = await new TestImmutableKeyOwner__factory(admin).deploy(key.address);
    const { salt, wallet } = await walletFor(label);
    await handOver(salt, await owner.getAddress());
    return { key, wallet };
  };

  it("refuses a sponsored operation while the SponsorPaymaster is unstaked: it reads its own _signers (STO-031)", async () => {
    const { key, wallet } = await immutableKeyWallet("unstaked paymaster");
    const answer = await send(wallet, key);
    expect(answer.error?.code).to.equal(BANNED_OPCODE_OR_STORAGE);
    const paymaster = deployment.contracts.sponsorPaymaster;
    const slot = signerSlot(sponsor.address, 1);
    expect(answer.error?.message).to.equal(`unstaked paymaster accessed paymaster slot ${slot}`);
    expect(answer.error?.data).to.deep.equal({ paymaster });
    expect(await holdsTrue(paymaster, slot)).to.equal(true);
    expect(await validOnChain(answer.op)).to.equal(true);
  });

  describe("with the SponsorPaymaster staked", () => {
    before(async () => {
      // The paymaster's stake (its deposit was made by the deployment): alto's minimum here, 1 ether for 1 s.
      const paymaster = SponsorPaymaster__factory.connect(deployment.contracts.sponsorPaymaster, admin);
      await (await paymaster.addStake(1, { value: parseEther("1") })).wait();
    });

    it("accepts and includes a wallet handed to an ERC-1271 owner whose key is an immutable (no storage read outside the wallet)", async () => {
      const { key, wallet } = await immutableKeyWallet("immutable-key owner");
      const answer = await send(wallet, key);
      expect(answer.error, JSON.stringify(answer.error)).to.equal(undefined);
      expect(answer.result).to.equal(answer.hash);
      const receipt = await receiptOf(answer.hash);
      expect(receipt.success).to.equal(true);
      expect(receipt.sender.toLowerCase()).to.equal(wallet.toLowerCase());
    });

    // The three below are what wallet code 2.1 changes (issue 36): they flip to "accepted and included" then. Their
    // wallets run today's code (2.0.0, as the frozen factory creates them); the flipped tests create them as the new
    // deployment does, and send custodial operations through the CustodyPaymaster.
    it("refuses today a deployed custodial wallet's operation: the wallet reads OwnerAccount._signers (STO-021)", async () => {
      const { salt, wallet } = await walletFor("custodial");
      const factory = KernelAccountFactory__factory.connect(deployment.contracts.kernelFactory, admin);
      await (await factory.createAccount(salt)).wait();
      const answer = await send(wallet, custody);
      await expectSignersRead(answer, wallet);
    });

    it("refuses today a custodial wallet's first operation (deployed by it) for the same read (STO-021)", async () => {
      const { salt, wallet } = await walletFor("custodial, first operation");
      await expectSignersRead(await send(wallet, custody, salt), wallet);
    });

    it("refuses today a wallet handed to an EOA: EXTCODESIZE on an address without code (OP-041)", async () => {
      const key = Wallet.createRandom();
      const { salt, wallet } = await walletFor("EOA owner");
      await handOver(salt, key.address);
      const answer = await send(wallet, key);
      expect(answer.error?.code).to.equal(BANNED_OPCODE_OR_STORAGE);
      expect(answer.error?.message).to.equal(
        `account accesses un-deployed contract address ${key.address.toLowerCase()} with opcode EXTCODESIZE`,
      );
      expect(await validOnChain(answer.op)).to.equal(true);
    });
  });

  /** Alto's refusal of `wallet`'s operation for reading the custody signer's entry of OwnerAccount._signers. */
  const expectSignersRead = async (answer: RpcAnswer & { op: PackedUserOperation }, wallet: string) => {
    expect(answer.error?.code).to.equal(BANNED_OPCODE_OR_STORAGE);
    const ownerAccount = deployment.contracts.ownerAccount;
    const slot = signerSlot(custody.address, 2);
    expect(answer.error?.message).to.equal(`unstaked account accessed ${ownerAccount.toLowerCase()} slot ${slot}`);
    expect(answer.error?.data).to.deep.equal({ account: wallet });
    expect(await holdsTrue(ownerAccount, slot)).to.equal(true);
    expect(await validOnChain(answer.op)).to.equal(true);
  };
});
