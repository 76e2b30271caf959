import { expect } from "chai";
import {
  AbiCoder,
  Interface,
  SigningKey,
  Wallet,
  getAddress,
  getBytes,
  hexlify,
  keccak256,
  randomBytes,
  toBeHex,
  zeroPadValue,
} from "ethers";
import { artifacts } from "hardhat";
import { createDigestSigner } from "../../../gateway/crypto/digestSigner";
import { testKeySigner } from "../../helpers/keySigners";
import { operationEvents } from "../../../gateway/userop/bundling/operationEvents";
import { signRelayerTransaction } from "../../../gateway/bundler/builtin/relayerTransaction";
import { bundleSimulatorInterface, entryPointInterface, opTuple } from "../../../gateway/userop/entryPoint";
import { decodeSimulateBundle, encodeHandleOps, encodeSimulateBundle } from "../../../gateway/userop/opsAbi";
import { BUNDLE_SIMULATOR_CODE } from "../../../gateway/userop/bundleSimulatorCode";
import { WALLET_SLOT_READER_CODE } from "../../../gateway/userop/walletSlotReaderCode";
import type { PackedUserOperation } from "../../../gateway/userop/packedUserOperation";
import { userOperationHash } from "../../../gateway/userop/packedUserOperation";
import { preVerificationGas } from "../../../gateway/userop/preVerificationGas";
import { personalDigest } from "../../../gateway/userop/words";
import { bundleGasBound, bundleGasLimit } from "../../../gateway/userop/bundling/bundleCheck";
import { operationGas } from "../../../gateway/userop/operationGas";
import { operationBytes } from "../../../gateway/userop/operationSize";
import type { BuiltUserOp } from "../../../gateway/transactions/builtOp";

const abi = AbiCoder.defaultAbiCoder();

/** The reference bundler's preVerificationGas, computed the plain way: encode everything, count bytes. */
function referencePreVerificationGas(op: PackedUserOperation): bigint {
  const packed = getBytes(
    abi.encode(
      ["address", "uint256", "bytes", "bytes", "bytes32", "uint256", "bytes32", "bytes", "bytes"],
      [
        op.sender,
        op.nonce,
        op.initCode,
        op.callData,
        op.accountGasLimits,
        op.preVerificationGas,
        op.gasFees,
        op.paymasterAndData,
        op.signature,
      ],
    ),
  );
  let cost = 0;
  for (const byte of packed) cost += byte === 0 ? 4 : 16;
  return BigInt(cost + 21_000 + 18_300 + 4 * Math.ceil(packed.length / 32));
}

/** A random operation: random lengths (0 to 300 bytes), sparse and dense bytes, big and small numbers. */
function randomOp(seed: number): PackedUserOperation {
  const bytes = (n: number) => (seed % 3 === 0 ? hexlify(new Uint8Array(n)) : hexlify(randomBytes(n)));
  const size = () => Math.floor(Math.random() * 300);
  return {
    sender: hexlify(randomBytes(20)),
    nonce: BigInt(hexlify(randomBytes(1 + (seed % 32)))),
    initCode: bytes(size()),
    callData: bytes(size()),
    accountGasLimits: zeroPadValue(toBeHex(BigInt(hexlify(randomBytes(1 + (seed % 32))))), 32),
    preVerificationGas: BigInt(seed * 1000),
    gasFees: hexlify(randomBytes(32)),
    paymasterAndData: bytes(seed % 2 === 0 ? 0 : 129),
    signature: bytes(65),
  };
}

describe("BundleSimulator code embedded in the service", () => {
  it("is the compiled contract's runtime code (copy the artifact's deployedBytecode after changing the contract)", async () => {
    const artifact = await artifacts.readArtifact("BundleSimulator");
    expect(BUNDLE_SIMULATOR_CODE).to.equal(artifact.deployedBytecode);
  });
});

describe("WalletSlotReader code embedded in the service", () => {
  it("is the compiled contract's runtime code (copy the artifact's deployedBytecode after changing the contract)", async () => {
    const artifact = await artifacts.readArtifact("WalletSlotReader");
    expect(WALLET_SLOT_READER_CODE).to.equal(artifact.deployedBytecode);
  });
});

describe("UserOperation encoding fast paths (equal to the plain ethers computations)", () => {
  it("counts preVerificationGas exactly as encoding the whole operation does, on 300 random operations", () => {
    for (let seed = 0; seed < 300; seed++) {
      const op = randomOp(seed);
      expect(preVerificationGas(op), `seed ${seed}`).to.equal(referencePreVerificationGas(op));
    }
  });

  it("hashes operations as the EntryPoint's formula written with ethers", () => {
    for (let seed = 0; seed < 50; seed++) {
      const op = randomOp(seed);
      const entryPoint = hexlify(randomBytes(20));
      const fields = abi.encode(
        ["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
        [
          op.sender,
          op.nonce,
          keccak256(op.initCode),
          keccak256(op.callData),
          op.accountGasLimits,
          op.preVerificationGas,
          op.gasFees,
          keccak256(op.paymasterAndData),
        ],
      );
      const expected = keccak256(
        abi.encode(["bytes32", "address", "uint256"], [keccak256(fields), entryPoint, 31337n + BigInt(seed)]),
      );
      expect(userOperationHash(op, entryPoint, 31337n + BigInt(seed))).to.equal(expected);
    }
  });

  it("signs EIP-191 digests exactly as ethers' SigningKey and signMessage do", async () => {
    const wallet = Wallet.createRandom();
    const signer = createDigestSigner(wallet.privateKey);
    expect(signer.address).to.equal(wallet.address);
    for (let i = 0; i < 20; i++) {
      const hash = hexlify(randomBytes(32));
      const digest = personalDigest(hash);
      expect(signer.sign(digest)).to.equal(new SigningKey(wallet.privateKey).sign(digest).serialized);
      expect(signer.sign(digest)).to.equal(await wallet.signMessage(getBytes(hash)));
    }
  });
});

describe("Bundle ABI coding fast paths (equal to ethers' coder)", () => {
  it("encodes handleOps and simulateBundle call data as ethers does, for bundles of 0 to 20 random operations", () => {
    for (let size = 0; size <= 20; size += 4) {
      const ops = Array.from({ length: size }, (_, i) => randomOp(size * 31 + i));
      const beneficiary = hexlify(randomBytes(20));
      expect(encodeHandleOps(ops, beneficiary)).to.equal(
        entryPointInterface.encodeFunctionData("handleOps", [ops.map(opTuple), beneficiary]),
      );
      expect(encodeSimulateBundle(beneficiary, ops, 3_500_000n)).to.equal(
        bundleSimulatorInterface.encodeFunctionData("simulateBundle", [beneficiary, ops.map(opTuple), 3_500_000n]),
      );
    }
  });

  it("decodes simulateBundle answers encoded by ethers: execution results, revert data, skipped operations", () => {
    const results = Array.from({ length: 9 }, (_, i) => ({
      simulated: i !== 8,
      success: i % 3 !== 1,
      execution: [
        BigInt(i) * 1000n + 7n,
        BigInt(i) * 99n,
        BigInt(i),
        1n << BigInt(160 + i),
        i % 2 === 0,
        hexlify(randomBytes(i * 5)),
      ],
      revert: hexlify(randomBytes(4 + i * 9)),
    }));
    const executionType = entryPointInterface.getFunction("simulateHandleOp")!.outputs;
    const answer = bundleSimulatorInterface.encodeFunctionResult("simulateBundle", [
      results.map((r) => [
        r.simulated,
        r.simulated && r.success,
        !r.simulated ? "0x" : r.success ? AbiCoder.defaultAbiCoder().encode(executionType, [r.execution]) : r.revert,
      ]),
    ]);
    expect(decodeSimulateBundle(answer)).to.deep.equal(
      results.map((r) =>
        !r.simulated
          ? { kind: "skipped" }
          : r.success
            ? {
                kind: "result",
                preOpGas: r.execution[0],
                paid: r.execution[1],
                accountValidationData: r.execution[2],
                paymasterValidationData: r.execution[3],
              }
            : { kind: "reverted", revertData: r.revert },
      ),
    );
  });

  it("reads UserOperationEvent and UserOperationRevertReason logs as ethers' parser does", () => {
    const entryPoint = hexlify(randomBytes(20));
    const hash = hexlify(randomBytes(32));
    const sender = getAddress(hexlify(randomBytes(20)));
    const reason = new Interface(["error Error(string)"]).encodeErrorResult("Error", ["no funds"]);
    const event = entryPointInterface.encodeEventLog("UserOperationEvent", [
      hash,
      sender,
      hexlify(randomBytes(20)),
      77n,
      false,
      123n,
      456n,
    ]);
    const revert = entryPointInterface.encodeEventLog("UserOperationRevertReason", [hash, sender, 77n, reason]);
    const logs = [revert, event].map((l) => ({ ...l, address: entryPoint, transactionHash: hash, blockNumber: 9 }));
    expect(operationEvents(logs, entryPoint).get(hash)).to.deep.equal({
      userOpHash: hash,
      sender,
      nonce: 77n,
      success: false,
      transactionHash: hash,
      blockNumber: 9,
      revertReason: "no funds",
      // actualGasUsed (after actualGasCost 123): what settles the app's budget.
      actualGasUsed: 456n,
    });
  });
});

describe("Relayer transaction signing fast path", () => {
  it("makes the same signed EIP-1559 transaction and hash as ethers' Wallet, for small and large call data", async () => {
    const wallet = Wallet.createRandom();
    const signer = testKeySigner(wallet.privateKey);
    for (const [i, size] of [0, 1, 55, 56, 300, 40_000].entries()) {
      const fields = {
        chainId: [1, 31337, 8453][i % 3]!,
        nonce: [0, 1, 127, 128, 70_000, 5][i]!,
        maxPriorityFeePerGas: BigInt(i) * 1_000_000_000n,
        maxFeePerGas: 30_000_000_000n + BigInt(i),
        gasLimit: 15_000_000n,
        to: getAddress(hexlify(randomBytes(20))),
        value: i === 2 ? 10n ** 18n : 0n,
        data: hexlify(randomBytes(size)),
      };
      const { rawTx, txHash } = await signRelayerTransaction(signer, fields, "hardhat");
      expect(rawTx).to.equal(await wallet.signTransaction({ ...fields, type: 2 }));
      expect(txHash).to.equal(keccak256(rawTx));
    }
  });
});

describe("Bundle gas bound while a bundle is filled", () => {
  it("is never under the gas limit the bundle gets once encoded, for bundles of 1 to 30 random operations", () => {
    const relayer = hexlify(randomBytes(20));
    for (let n = 1; n <= 30; n++) {
      const ops = Array.from({ length: n }, (_, i) => randomOp(i + n));
      const built = ops.map((userOp, i) => ({ txId: `tx${i}`, userOp, userOpHash: "0x" }) as BuiltUserOp);
      const opsGas = ops.reduce((sum, op) => sum + operationGas(op), 0n);
      const bytes = ops.reduce((sum, op) => sum + operationBytes(op), 0);
      const limit = bundleGasLimit(built, encodeHandleOps(ops, relayer));
      expect(bundleGasBound(opsGas, bytes) >= limit, `${n} operations`).to.equal(true);
    }
  });
});
