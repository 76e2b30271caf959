import { ethers } from "hardhat";
import { type Signer, Wallet, getBytes, parseEther } from "ethers";
import {
  CustodyPaymaster__factory,
  KernelAccount21__factory,
  KernelAccountCreator__factory,
  KernelAccount__factory,
} from "../../typechain-types";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { type CustodyLeaf, signCustodyRoot } from "../../gateway/userop/custodyRoot";
import type { SponsorshipTerms } from "../../gateway/userop/sponsorship";
import { counterfactualWallet, deployIdwalletFixture } from "./deployment";
import { buildUserOp } from "./userOps";

const kernel = KernelAccount__factory.createInterface();
const CALL = 0;

/**
 * The idwallet contracts (deployIdwalletFixture) plus code 2.1: the CustodyPaymaster (deposit 10 ETH, owner the
 * admin), KernelAccount21, and the KernelAccountCreator holding the OwnerAccount's admin role (the admin forwards).
 */
export async function deployKernel21Fixture() {
  // The creator takes the OwnerAccount's admin role: an admin of its own keeps every other fixture's OwnerAccount as
  // it was, whatever ran before on the shared chain.
  const admin = Wallet.createRandom(ethers.provider);
  const [funder] = await ethers.getSigners();
  await (await funder!.sendTransaction({ to: admin.address, value: parseEther("1000") })).wait();
  const base = await deployIdwalletFixture({ admin });
  const c = base.deployment.contracts;
  const custodyPaymaster = await new CustodyPaymaster__factory(base.admin).deploy(
    c.entryPoint,
    c.ownerAccount,
    base.admin.address,
  );
  await custodyPaymaster.deposit({ value: parseEther("10") });
  const k21 = await new KernelAccount21__factory(base.admin).deploy(c.entryPoint, c.ownerAccount, custodyPaymaster);
  const creator = await new KernelAccountCreator__factory(base.admin).deploy(
    c.ownerAccount,
    c.kernelFactory,
    c.entryPoint,
    k21,
    base.admin.address,
  );
  await base.ownerAccount.transferOwnership(creator);
  await creator.forward(base.ownerAccount.interface.encodeFunctionData("acceptOwnership"));
  /** The admin's call to the OwnerAccount, through the creator that now holds the role. */
  const asAdmin = (data: string) => creator.forward(data);
  const paymasterAddress = await custodyPaymaster.getAddress();
  return {
    ...base,
    custodyPaymaster,
    k21,
    creator,
    asAdmin,
    /** CustodyPaymaster terms: its validation gas, no postOp, valid until `validUntil` (0: no end). */
    custodyTerms: (validUntil = 0): SponsorshipTerms => ({
      paymaster: paymasterAddress,
      verificationGasLimit: 100_000n,
      postOpGasLimit: 0n,
      validUntil,
      validAfter: 0,
    }),
  };
}

export type Kernel21Fixture = Awaited<ReturnType<typeof deployKernel21Fixture>>;

/** A wallet of `userId`: its address, salt and initCode through the frozen factory or `factory` (the creator). */
export function kernelWallet(f: Kernel21Fixture, userId: string, factory?: string) {
  const frozen = counterfactualWallet(f.deployment.contracts.kernelFactory, "kernel", userId);
  if (!factory) return frozen;
  // The creator's createAccount(bytes32) has the factory's selector: the same factory data behind another address.
  return { ...frozen, initCode: `${factory}${frozen.initCode.slice(42)}` };
}

/** Call data of a single call from the wallet. */
export const callData = (target: string, value: bigint, data = "0x"): string =>
  kernel.encodeFunctionData("execute", [target, value, data, CALL]);

/** An unsigned operation of `sender` at nonce key `key` (sequence 0). */
export const opOf = (sender: string, data: string, key = 0n, initCode = "0x"): PackedUserOperation =>
  buildUserOp({ sender, nonce: key << 64n, callData: data, initCode });

/** Signs one custody root over `ops` with `signer` (raw signature over the EIP-712 digest), as the service does. */
export async function custodyBundle(
  f: Kernel21Fixture,
  ops: readonly PackedUserOperation[],
  signer: Signer = f.walletKey,
  validUntil = 0,
): Promise<PackedUserOperation[]> {
  const leaves: CustodyLeaf[] = ops.map((op) => ({ op, terms: f.custodyTerms(validUntil) }));
  const signingKey = new ethers.Wallet(await privateKeyOf(signer));
  const { ops: signed } = await signCustodyRoot(
    leaves,
    { chainId: f.chainId, entryPoint: f.deployment.contracts.entryPoint },
    async (digest) => signingKey.signingKey.sign(getBytes(digest)).serialized,
  );
  return signed;
}

/** Hardhat's default accounts' private keys, by address (the test signers sign raw digests). */
export async function privateKeyOf(signer: Signer): Promise<string> {
  const address = (await signer.getAddress()).toLowerCase();
  const accounts = ethers.HDNodeWallet.fromPhrase(
    "test test test test test test test test test test test junk",
    undefined,
    "m/44'/60'/0'/0",
  );
  for (let i = 0; i < 20; i += 1) {
    const key = accounts.deriveChild(i);
    if (key.address.toLowerCase() === address) return key.privateKey;
  }
  throw new Error(`no known private key for ${address}`);
}
