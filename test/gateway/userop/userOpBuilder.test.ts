import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import type { JsonRpcProvider } from "ethers";
import { testKeySigner } from "../../helpers/keySigners";
import { formatUserId } from "../../../gateway/identity/userId";
import type { WalletTxRecord } from "../../../gateway/transactions/txRecord";
import { type OpBuilderDeps, buildUserOperation, buildUserOperations } from "../../../gateway/userop/userOpBuilder";
import { nonceKey, opTuple, requestNonce } from "../../../gateway/userop/entryPoint";
import { operationBound } from "../../../gateway/userop/requestBounds";
import { operationGas } from "../../../gateway/userop/operationGas";
import { devKey } from "../../../scripts/localStack/devKeys";
import {
  counterfactualWallet,
  deployIdwalletFixture,
  deployTestContracts,
  opBuilderDeps,
} from "../../helpers/deployment";
import { type SeenRequest, simulatedOps } from "../../helpers/simulatedOps";

const FEES = { maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

async function fixture() {
  const deployed = await deployIdwalletFixture();
  const { target } = await deployTestContracts();
  const deps: OpBuilderDeps = opBuilderDeps(deployed, "hardhat");
  return { ...deployed, target, deps };
}

/** A stored request for `userId` calling TestTarget.record(number). */
function request(id: string, userId: string, factory: string, target: string, data: string): WalletTxRecord {
  const { wallet, userId: parsed } = counterfactualWallet(factory, "kernel", userId);
  return {
    id,
    appId: "app",
    accountType: "kernel",
    userId: formatUserId(parsed),
    chain: "localhost",
    sender: wallet,
    calls: [{ to: target, value: 0n, data }],
    delegatecall: false,
    idempotencyKey: undefined,
    requestHash: "",
    status: "queued",
    userOp: undefined,
    userOpHash: undefined,
    bundleId: undefined,
    transactionHash: undefined,
    blockNumber: undefined,
    success: undefined,
    error: undefined,
    attempts: 0,
    nextAttemptAt: "",
    createdAt: "",
    updatedAt: "",
    settledGas: undefined,
    spentGas: 0n,
  };
}

describe("UserOperation builder (against the real EntryPoint v0.7)", () => {
  it("builds a sponsored, signed operation that deploys the wallet and runs the call, with tight call gas", async () => {
    const { deps, entryPoint, target, admin } = await loadFixture(fixture);
    const tx = request(
      "7c1e…first",
      "tel:14155550201",
      deps.factories.kernel,
      await target.getAddress(),
      target.interface.encodeFunctionData("record", [1]),
    );
    const result = await buildUserOperation(tx, { deployed: false, fees: FEES }, deps);
    if (!("built" in result)) throw new Error(`build failed: ${JSON.stringify(result.failure)}`);
    const { userOp, userOpHash } = result.built;
    expect(userOp.nonce).to.equal(requestNonce(tx.id));
    expect(await entryPoint.getFunction("getUserOpHash")(opTuple(userOp))).to.equal(userOpHash);

    const receipt = await (await entryPoint.getFunction("handleOps")([opTuple(userOp)], admin.address)).wait();
    const event = receipt!.logs
      .map((log: { topics: string[]; data: string }) => entryPoint.interface.parseLog(log))
      .find((e: { name: string } | null) => e?.name === "UserOperationEvent")!;
    expect(event.args.success).to.equal(true);
    expect(await ethers.provider.getCode(tx.sender)).to.not.equal("0x");
    // v0.7 charges 10 % of unused call gas: the measured limit keeps that penalty small.
    const callGasLimit = BigInt(`0x${userOp.accountGasLimits.slice(34)}`);
    expect(callGasLimit).to.be.lessThan(60_000n);
  });

  it("makes every build of one request share a single-use nonce: a second build is refused once one ran", async () => {
    const { deps, entryPoint, target, admin } = await loadFixture(fixture);
    const data = target.interface.encodeFunctionData("record", [2]);
    const tx = request("7c1e…second", "tel:14155550202", deps.factories.kernel, await target.getAddress(), data);
    const first = await buildUserOperation(tx, { deployed: false, fees: FEES }, deps);
    const retry = await buildUserOperation(
      tx,
      { deployed: false, fees: { ...FEES, maxFeePerGas: FEES.maxFeePerGas * 2n } },
      deps,
    );
    if (!("built" in first) || !("built" in retry)) throw new Error("build failed");
    expect(retry.built.userOpHash).to.not.equal(first.built.userOpHash);
    await (await entryPoint.getFunction("handleOps")([opTuple(first.built.userOp)], admin.address)).wait();
    expect(await entryPoint.getFunction("getNonce")(tx.sender, nonceKey(requestNonce(tx.id)))).to.equal(
      requestNonce(tx.id) + 1n,
    );
    // The other version can no longer run, and a fresh build is rejected as already used.
    await expect(entryPoint.getFunction("handleOps")([opTuple(retry.built.userOp)], admin.address)).to.be.reverted;
    const again = await buildUserOperation(tx, { deployed: true, fees: FEES }, deps);
    expect(again).to.deep.include({
      failure: { code: "NONCE_ALREADY_USED", action: "fail", message: "AA25 invalid account nonce" },
    });
  });

  it("an outsider who saw the simulation call cannot have the simulated operation included (AA32)", async () => {
    const { deps, entryPoint, target, admin } = await loadFixture(fixture);
    // The node's view of the build: every request the builder sends it, forwarded unchanged.
    const seen: SeenRequest[] = [];
    const watched = {
      send: (method: string, params: unknown[]) => {
        seen.push({ method, params });
        return ethers.provider.send(method, params);
      },
    } as unknown as JsonRpcProvider;
    const data = target.interface.encodeFunctionData("record", [4]);
    const tx = request("7c1e…watched", "tel:14155550204", deps.factories.kernel, await target.getAddress(), data);
    const result = await buildUserOperation(tx, { deployed: false, fees: FEES }, { ...deps, provider: watched });
    if (!("built" in result)) throw new Error(`build failed: ${JSON.stringify(result.failure)}`);
    const [simulated, ...rest] = simulatedOps(seen);
    expect(rest).to.have.length(0);
    const outsider = (await ethers.getSigners())[9]!;
    await expect(entryPoint.connect(outsider).getFunction("handleOps")([opTuple(simulated!)], outsider.address))
      .to.be.revertedWithCustomError(entryPoint, "FailedOp")
      .withArgs(0, "AA32 paymaster expired or not due");
    // The simulated operation has the real build's shape, so what it measured holds: the real build runs.
    const { userOp } = result.built;
    expect(simulated!.preVerificationGas).to.equal(userOp.preVerificationGas);
    expect(ethers.dataLength(simulated!.paymasterAndData)).to.equal(ethers.dataLength(userOp.paymasterAndData));
    const receipt = await (await entryPoint.getFunction("handleOps")([opTuple(userOp)], admin.address)).wait();
    const event = receipt!.logs
      .map((log: { topics: string[]; data: string }) => entryPoint.interface.parseLog(log))
      .find((e: { name: string } | null) => e?.name === "UserOperationEvent")!;
    expect(event.args.success).to.equal(true);
  });

  it("builds operations within the preVerificationGas acceptance counted, and fails a stored one over the cap at once", async () => {
    const { deps, target } = await loadFixture(fixture);
    const data = ethers.concat([target.interface.encodeFunctionData("record", [5]), ethers.randomBytes(2000)]);
    const tx = request("7c1e…sized", "tel:14155550205", deps.factories.kernel, await target.getAddress(), data);
    const bound = operationBound("kernel", tx.calls, false).preVerificationGas;
    const result = await buildUserOperation(tx, { deployed: false, fees: FEES }, deps);
    if (!("built" in result)) throw new Error(`build failed: ${JSON.stringify(result.failure)}`);
    expect(result.built.userOp.preVerificationGas <= bound).to.equal(true);
    // A request stored before acceptance bounded it: refused without a node call.
    const capped = await buildUserOperation(
      tx,
      { deployed: false, fees: FEES },
      { ...deps, maxPreVerificationGas: 50_000n },
    );
    expect("failure" in capped && capped.failure.code).to.equal("CALL_DATA_TOO_LARGE");
  });

  it("names a wallet key or sponsor key the contracts do not accept with stable codes, before anything is sent", async () => {
    const { deps, target } = await loadFixture(fixture);
    const data = target.interface.encodeFunctionData("record", [3]);
    const tx = request("7c1e…third", "tel:14155550203", deps.factories.kernel, await target.getAddress(), data);
    const badWallet = await buildUserOperation(
      tx,
      { deployed: false, fees: FEES },
      { ...deps, walletSigner: testKeySigner(devKey(7)) },
    );
    expect("failure" in badWallet && badWallet.failure.code).to.equal("WALLET_SIGNATURE_INVALID");
    const badSponsor = await buildUserOperation(
      tx,
      { deployed: false, fees: FEES },
      { ...deps, sponsorSigner: testKeySigner(devKey(7)) },
    );
    expect("failure" in badSponsor && badSponsor.failure.code).to.equal("SPONSOR_SIGNATURE_INVALID");
  });

  it("measures a heavy call next to light ones without starving them, and all three run with their limits", async () => {
    const { deps, entryPoint, target, admin } = await loadFixture(fixture);
    const to = await target.getAddress();
    const light = (n: number) => target.interface.encodeFunctionData("record", [n]);
    const txs = [
      request("7c1e…light-1", "tel:14155550211", deps.factories.kernel, to, light(1)),
      request(
        "7c1e…heavy",
        "tel:14155550212",
        deps.factories.kernel,
        to,
        target.interface.encodeFunctionData("burn", [5000]),
      ),
      request("7c1e…light-2", "tel:14155550213", deps.factories.kernel, to, light(2)),
    ];
    const results = await buildUserOperations(
      txs.map((tx) => ({ tx, deployed: false })),
      FEES,
      deps,
    );
    const ops = results.map((r) => {
      if (!("built" in r)) throw new Error(`build failed: ${JSON.stringify(r)}`);
      return r.built.userOp;
    });
    const callGas = (op: { accountGasLimits: string }) => BigInt(`0x${op.accountGasLimits.slice(34)}`);
    expect(callGas(ops[1]!)).to.be.greaterThan(1_500_000n);
    expect(callGas(ops[0]!)).to.be.lessThan(100_000n);
    const receipt = await (
      await entryPoint.getFunction("handleOps")(ops.map(opTuple), admin.address, { gasLimit: 12_000_000 })
    ).wait();
    const successes = receipt!.logs
      .map((log: { topics: string[]; data: string }) => entryPoint.interface.parseLog(log))
      .filter((e: { name: string } | null) => e?.name === "UserOperationEvent")
      .map((e: { args: { success: boolean } }) => e.args.success);
    expect(successes).to.deep.equal([true, true, true]);
  });

  it("refuses to sponsor calls above the call-gas cap", async () => {
    const { deps, target } = await loadFixture(fixture);
    const data = target.interface.encodeFunctionData("burn", [5000]);
    const tx = request("7c1e…capped", "tel:14155550221", deps.factories.kernel, await target.getAddress(), data);
    const result = await buildUserOperation(tx, { deployed: false, fees: FEES }, { ...deps, maxCallGas: 1_000_000n });
    expect("failure" in result && result.failure.code).to.equal("CALL_GAS_TOO_HIGH");
  });

  it("fails an operation whose gas limits could cost more than its request reserved from the budget", async () => {
    const { deps, target } = await loadFixture(fixture);
    const data = target.interface.encodeFunctionData("burn", [500]);
    const tx = request("7c1e…reserved", "tel:14155550222", deps.factories.kernel, await target.getAddress(), data);
    const fits = await buildUserOperation(tx, { deployed: false, fees: FEES }, deps);
    if (!("built" in fits)) throw new Error(`build failed: ${JSON.stringify(fits.failure)}`);
    const cost = operationGas(fits.built.userOp);
    // Exactly its maximum cost reserved: built. One gas less: the operation could overspend, so it is not sent.
    const exact = await buildUserOperation({ ...tx, reservedGas: cost }, { deployed: false, fees: FEES }, deps);
    expect("built" in exact).to.equal(true);
    const short = await buildUserOperation({ ...tx, reservedGas: cost - 1n }, { deployed: false, fees: FEES }, deps);
    expect("failure" in short && short.failure).to.deep.include({ code: "RESERVATION_EXCEEDED", action: "fail" });
  });
});
