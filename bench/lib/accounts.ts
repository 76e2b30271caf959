import { type Signer, ContractFactory, Interface } from "ethers";
import simpleFactoryArtifact from "@account-abstraction/contracts/artifacts/SimpleAccountFactory.json";
import simpleAccountArtifact from "@account-abstraction/contracts/artifacts/SimpleAccount.json";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { type PackedUserOperation, packInitCode } from "../../gateway/userop/packedUserOperation";
import { KernelAccount__factory, KernelAccountFactory__factory, TestToken__factory } from "../../typechain-types";

const CALL = 0;
const BENCH_USER_ID = parseUserId("github:gas-bench");
const erc20 = TestToken__factory.createInterface();
const kernel = KernelAccount__factory.createInterface();
const kernelFactory = KernelAccountFactory__factory.createInterface();
const simple = new Interface(simpleAccountArtifact.abi);

/** One ERC-20 transfer an op makes. */
export interface Transfer {
  readonly to: string;
  readonly amount: bigint;
}

/**
 * What makes an unsigned operation acceptable: the owner's signature, a paymaster's sponsorship and then the owner's,
 * or a custody root; it returns the operation as sent and the bytes of it priced apart (a custody proof), if any.
 */
export type Authorize = (op: PackedUserOperation) => Promise<{ op: PackedUserOperation; apartBytes?: string }>;

/** A wallet under test: its address, how it is deployed, how its operations are authorized, how it encodes transfers. */
export interface BenchAccount {
  readonly label: string;
  readonly address: string;
  readonly initCode: string;
  readonly authorize: Authorize;
  /** What `owner()` must return once deployed, so a mix-up of the variants cannot go unnoticed. */
  readonly expectedOwner: string;
  /** The implementation its ERC-1967 slot must name once deployed, where the code it runs is the point. */
  readonly expectedImplementation?: string;
  encodeTransfers(token: string, transfers: readonly Transfer[]): string;
}

/** ERC-20 `transfer` call data. */
const transferData = (t: Transfer): string => erc20.encodeFunctionData("transfer", [t.to, t.amount]);

/** KernelAccount call data: `execute` for one transfer, `executeBatch` for several. */
function encodeKernelTransfers(token: string, transfers: readonly Transfer[]): string {
  const calls = transfers.map((t) => ({ target: token, value: 0n, data: transferData(t), operation: CALL }));
  if (calls.length === 1) return kernel.encodeFunctionData("execute", [token, 0n, calls[0]!.data, CALL]);
  return kernel.encodeFunctionData("executeBatch", [calls]);
}

/** SimpleAccount call data: `execute` for one transfer, `executeBatch` for several. */
function encodeSimpleTransfers(token: string, transfers: readonly Transfer[]): string {
  const data = transfers.map(transferData);
  if (data.length === 1) return simple.encodeFunctionData("execute", [token, 0n, data[0]]);
  // Values passed explicitly (SimpleAccount also takes an empty array), as SDKs do and as Kernel's Call carries.
  return simple.encodeFunctionData("executeBatch", [transfers.map(() => token), transfers.map(() => 0n), data]);
}

/** Where a KernelAccount comes from: the frozen factory its address derives from, and who creates it (default: it). */
export interface KernelOrigin {
  readonly factory: string;
  /** The KernelAccountCreator, whose createAccount(salt) creates the same wallet on current code. */
  readonly creator?: string;
}

/** Our KernelAccount for `userId` (the bench's own by default), from `origin`, owned by `owner`. */
export function kernelAccount(
  label: string,
  origin: KernelOrigin,
  authorize: Authorize,
  owner: string,
  userId = BENCH_USER_ID,
): BenchAccount {
  // The creator's createAccount(bytes32) has the factory's selector: the same factory data behind another address.
  const factoryData = kernelFactory.encodeFunctionData("createAccount", [walletSalt("kernel", userId)]);
  return {
    label,
    address: deriveWalletAddress(origin.factory, "kernel", userId),
    initCode: packInitCode(origin.creator ?? origin.factory, factoryData),
    authorize,
    expectedOwner: owner,
    encodeTransfers: encodeKernelTransfers,
  };
}

/**
 * eth-infinitism's SimpleAccount v0.7 owned by `signer`, from a freshly deployed SimpleAccountFactory; `authorize`
 * signs as its owner (and may sponsor first).
 */
export async function simpleAccount(
  label: string,
  entryPoint: string,
  deployer: Signer,
  signer: Signer,
  authorize: Authorize,
): Promise<BenchAccount> {
  const { abi, bytecode } = simpleFactoryArtifact;
  const factory = await new ContractFactory(abi, bytecode, deployer).deploy(entryPoint);
  await factory.waitForDeployment();
  const owner = await signer.getAddress();
  const salt = 0n;
  return {
    label,
    // By name: BaseContract.getAddress() shadows the factory's own getAddress(owner, salt).
    address: await factory.getFunction("getAddress")(owner, salt),
    initCode: packInitCode(
      await factory.getAddress(),
      factory.interface.encodeFunctionData("createAccount", [owner, salt]),
    ),
    authorize,
    expectedOwner: owner,
    encodeTransfers: encodeSimpleTransfers,
  };
}

/** The solc version SimpleAccount's npm artifact was built with, read from its CBOR metadata trailer. */
export function simpleAccountSolcVersion(): string {
  // Solidity's metadata: key "solc" (64736f6c63), a 3-byte string (43), then major, minor, patch.
  const version = /64736f6c6343([0-9a-f]{6})/.exec(simpleAccountArtifact.deployedBytecode.slice(-120))?.[1];
  if (!version) return "unknown";
  return [0, 2, 4].map((i) => parseInt(version.slice(i, i + 2), 16)).join(".");
}
