import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { Transaction, type JsonRpcProvider, hexlify, randomBytes } from "ethers";
import request from "supertest";
import { TestGasPriceOracle__factory } from "../../../typechain-types";
import type { ChainClient } from "../../../gateway/chains/clients";
import { GAS_PRICE_ORACLE, createL1DataFee } from "../../../gateway/chains/l1DataFee";
import { CHAINS } from "../../../gateway/chains/registry";
import { formatUserId } from "../../../gateway/identity/userId";
import { worstCaseGas } from "../../../gateway/policy/worstCaseGas";
import type { WalletTxRecord } from "../../../gateway/transactions/txRecord";
import { opTuple } from "../../../gateway/userop/entryPoint";
import { encodeHandleOps } from "../../../gateway/userop/opsAbi";
import { l1DataGasOf, operationGas } from "../../../gateway/userop/operationGas";
import { bundleGasLimit } from "../../../gateway/userop/bundling/bundleCheck";
import { relayCostGas } from "../../../gateway/safe/relay/spentGas";
import { operationBound } from "../../../gateway/userop/requestBounds";
import { preVerificationGasBound } from "../../../gateway/userop/preVerificationGas";
import { type OpBuilderDeps, buildUserOperation, buildUserOperations } from "../../../gateway/userop/userOpBuilder";
import { expectedGasPrice } from "../../../gateway/userop/operationDraft";
import {
  counterfactualWallet,
  deployIdwalletFixture,
  deployTestContracts,
  opBuilderDeps,
} from "../../helpers/deployment";
import { hs256Provider } from "../../helpers/providerProofs";
import { buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

/** An OP-stack chain's fees in 2024 on Base: L1 base fee 30 gwei, blob base fee 1 gwei, Base's scalars. */
const L1_FEES = { l1BaseFee: 30_000_000_000n, blobBaseFee: 1_000_000_000n, baseFeeScalar: 2269, blobScalar: 1_055_762 };
/** The operation's fees: a cheap L2 (0.05 gwei), where the L1 data fee dominates a large operation's cost. */
const FEES = { maxFeePerGas: 50_000_000n, maxPriorityFeePerGas: 1_000_000n };
/** The most call data one request may carry by default (TX_MAX_CALL_DATA_BYTES): an attacker's largest request. */
const MAX_CALL_DATA = 32 * 1024;

/**
 * The local chain answers as an OP-stack chain's oracle does: the test oracle's code at the GasPriceOracle predeploy,
 * with L1 fee parameters in its storage (the chain itself charges no L1 fee: the oracle stands for the real one).
 */
async function placeOracle() {
  const [deployer] = await ethers.getSigners();
  const deployed = await new TestGasPriceOracle__factory(deployer).deploy();
  await ethers.provider.send("hardhat_setCode", [GAS_PRICE_ORACLE, await ethers.provider.getCode(deployed)]);
  const oracle = TestGasPriceOracle__factory.connect(GAS_PRICE_ORACLE, deployer!);
  const f = L1_FEES;
  await (await oracle.setL1FeeParameters(f.l1BaseFee, f.blobBaseFee, f.baseFeeScalar, f.blobScalar)).wait();
  return oracle;
}

async function fixture() {
  const deployed = await deployIdwalletFixture();
  const { target } = await deployTestContracts();
  const oracle = await placeOracle();
  const deps: OpBuilderDeps = opBuilderDeps(deployed, "ogor");
  return { ...deployed, target, oracle, deps };
}

/** A stored request of `userId` calling `target` with `data`. */
function stored(id: string, userId: string, factory: string, target: string, data: string): WalletTxRecord {
  const { wallet, userId: parsed } = counterfactualWallet(factory, "kernel", userId);
  return {
    ...{ id, appId: "app", accountType: "kernel", userId: formatUserId(parsed), chain: "ogor", sender: wallet },
    ...{ calls: [{ to: target, value: 0n, data }], delegatecall: false, idempotencyKey: undefined, requestHash: "" },
    ...{ status: "queued", userOp: undefined, userOpHash: undefined, bundleId: undefined },
    ...{ transactionHash: undefined, blockNumber: undefined, success: undefined, error: undefined, attempts: 0 },
    ...{ nextAttemptAt: "", createdAt: "", updatedAt: "", settledGas: undefined, spentGas: 0n },
  };
}

/** `bytes` bytes of call data: a call of TestTarget's `record(uint256)` and incompressible bytes after its argument. */
const largeCall = (recordCall: string, bytes: number): string =>
  hexlify(new Uint8Array([...ethers.getBytes(recordCall), ...randomBytes(bytes - ethers.dataLength(recordCall))]));

const SECRET = "op-stack-proof-secret-of-32-chars-at-least";
const TARGET = "0x000000000000000000000000000000000000dEaD";
/** Safe contracts of the Safe API tests: the requests are refused or stored, never built. */
const SAFE_CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;

/** The API with `ogor` (an OP-stack chain) and `localhost` both served by the local chain, and an app with `budgetGas`. */
async function apiWithBudget(budgetGas: bigint) {
  const client = (name: string, chainId: number): ChainClient => ({
    name,
    chainId,
    provider: ethers.provider as unknown as JsonRpcProvider,
  });
  const built = buildTestApp(
    {},
    {
      chains: new Map([
        ["ogor", client("ogor", 420)],
        ["localhost", client("localhost", 31337)],
      ]),
      txChains: ["ogor", "localhost"],
    },
  );
  const { app, token } = await built.appWithToken("op-stack app", true);
  const repos = await built.repositories;
  await repos.providers.register(app.id, "opapp", hs256Provider(SECRET));
  await repos.apps.setPolicy(app.id, { budgetGas, periodSeconds: 3600 });
  const post = (chain: string, data: string) =>
    request(built.app)
      .post("/v1/kernel/tx")
      .set("Authorization", `Bearer ${token}`)
      .send({ userId: "opapp:mallory", chain, to: [TARGET], value: ["0"], data: [data], auth: "" });
  return { built, post };
}

describe("OP-stack L1 data fee: operations and budgets count it where the chain charges it", () => {
  it("the registry marks the OP-stack chains as charging an L1 data fee, and no other", () => {
    expect(CHAINS.filter((c) => c.l1DataFee).map((c) => c.name)).to.deep.equal([
      "base",
      "zora-mainnet",
      "oeth",
      "ogor",
      "zora-goerli",
      "basesep",
      "opsep",
      "zsep",
    ]);
  });

  it("an app sends maximum-size call data on an OP-stack chain: the L1 data fee is counted in preVerificationGas", async () => {
    const { deps, target, oracle, entryPoint, admin } = await loadFixture(fixture);
    const data = largeCall(target.interface.encodeFunctionData("record", [7]), MAX_CALL_DATA);
    const tx = stored("0c1e-l1-fee", "tel:14155550301", deps.factories.kernel, await target.getAddress(), data);
    const result = await buildUserOperation(
      tx,
      { deployed: false, fees: FEES },
      { ...deps, l1DataFee: createL1DataFee(deps.provider) },
    );
    if (!("built" in result)) throw new Error(`build failed: ${JSON.stringify(result.failure)}`);
    const { userOp } = result.built;
    const l2Part = preVerificationGasBound(userOp, deps.paymaster);
    // What the chain charges the relayer for a bundle of this operation alone: the oracle's fee of the unsigned
    // bundle transaction (the EIP-1559 envelope the relayer signs, with the handleOps call data).
    const bundle = Transaction.from({
      type: 2,
      chainId: deps.chainId,
      nonce: 1_000_000,
      gasLimit: 15_000_000,
      maxFeePerGas: FEES.maxFeePerGas * 3n,
      maxPriorityFeePerGas: FEES.maxPriorityFeePerGas * 3n,
      to: deps.entryPoint,
      value: 0,
      data: encodeHandleOps([userOp], admin.address),
    });
    const l1Fee = await oracle.getL1Fee(bundle.unsignedSerialized);
    expect(l1Fee).to.be.greaterThan(0n);
    // The L1 part of preVerificationGas, at the price the EntryPoint charges the operation (base fee + tip), pays back
    // at least the L1 fee of its bundle ...
    const charged = expectedGasPrice(FEES);
    expect(charged).to.equal(25_500_000n);
    expect((userOp.preVerificationGas - l2Part) * charged).to.be.at.least(l1Fee);
    // ... and not wildly more (its bytes counted at their largest, the whole envelope charged to it).
    expect((userOp.preVerificationGas - l2Part) * charged).to.be.lessThan((l1Fee * 11n) / 10n);

    // The EntryPoint charges the paymaster for it like gas used: the operation's actualGasUsed (what settles the
    // app's budget) holds it.
    // The bundle's gas limit holds no L1 part (no code burns it), and the operation runs within it.
    expect(l1DataGasOf(userOp)).to.equal(userOp.preVerificationGas - l2Part);
    const gasLimit = bundleGasLimit([result.built], encodeHandleOps([userOp], admin.address));
    expect(gasLimit).to.be.lessThan(operationGas(userOp));
    const handleOps = entryPoint.getFunction("handleOps");
    const receipt = await (await handleOps([opTuple(userOp)], admin.address, { gasLimit })).wait();
    const event = receipt!.logs
      .map((log: { topics: string[]; data: string }) => entryPoint.interface.parseLog(log))
      .find((e: { name: string } | null) => e?.name === "UserOperationEvent")!;
    expect(event.args.success).to.equal(true);
    expect(event.args.actualGasUsed).to.be.at.least(userOp.preVerificationGas);
  });

  it("on a chain without an L1 data fee the operation's preVerificationGas is its L2 count alone", async () => {
    const { deps, target } = await loadFixture(fixture);
    const data = largeCall(target.interface.encodeFunctionData("record", [8]), MAX_CALL_DATA);
    const tx = stored("0c1e-l2-only", "tel:14155550302", deps.factories.kernel, await target.getAddress(), data);
    const result = await buildUserOperation(tx, { deployed: false, fees: FEES }, deps);
    if (!("built" in result)) throw new Error(`build failed: ${JSON.stringify(result.failure)}`);
    expect(result.built.userOp.preVerificationGas).to.equal(
      preVerificationGasBound(result.built.userOp, deps.paymaster),
    );
  });

  it("an app sends maximum-size call data on an OP-stack chain: its budget counts the L1 data fee, and one that covers only the L2 gas refuses it", async () => {
    const { oracle } = await loadFixture(fixture);
    const data = hexlify(randomBytes(MAX_CALL_DATA));
    const l2Gas = worstCaseGas([{ to: TARGET, value: 0n, data }], "wallet", 5_000_000);
    // The budget covers the L2 gas of the request at its worst, and not the L1 data fee of its bytes.
    const { built, post } = await apiWithBudget(l2Gas + 1_000n);
    try {
      const refused = await post("ogor", data);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
      expect(refused.body).to.deep.include({ code: "BUDGET_EXCEEDED", chain: "ogor" });
      const requestGas = BigInt(refused.body.requestGas as string);
      // What it reserved beyond its L2 gas pays the L1 fee the chain charges for the most bytes its operation can
      // have (every byte non-zero, its share of the bundle's envelope) at the chain's gas price.
      const bytes = operationBound("kernel", [{ to: TARGET, value: 0n, data }], false).bytes + 200;
      const fee = await oracle.getL1Fee(`0x${"ff".repeat(bytes)}`);
      const gasPrice = BigInt(await ethers.provider.send("eth_gasPrice", []));
      expect(requestGas - l2Gas).to.be.at.least((fee + gasPrice - 1n) / gasPrice);
      // On a chain without an L1 data fee nothing changes: the same request fits the same budget.
      expect((await post("localhost", data)).status).to.equal(202);
    } finally {
      built.close();
    }
  });

  it("an app relays maximum-size call data through its Safe on an OP-stack chain: its budget counts the relay's L1 data fee", async () => {
    const { oracle } = await loadFixture(fixture);
    const client = (name: string, chainId: number): ChainClient => ({
      name,
      chainId,
      provider: ethers.provider as unknown as JsonRpcProvider,
    });
    const built = buildTestApp(
      {
        chains: { oeth: { rpcUrl: "http://127.0.0.1:9" }, localhost: { rpcUrl: "http://127.0.0.1:9" } },
        relayerKey: `0x${"4b".repeat(32)}`,
        safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: SAFE_CONTRACTS },
      },
      {
        chains: new Map([
          ["oeth", client("oeth", 10)],
          ["localhost", client("localhost", 31337)],
        ]),
        txChains: ["oeth", "localhost"],
      },
    );
    try {
      const relayCeiling = worstCaseGas([], "safe", 5_000_000);
      const { app, token } = await built.appWithToken("safe app");
      // Its budget holds the Safe's creation and one relay at the L2 gas cap, not the L1 data fee of a large one.
      await (await built.repositories).apps.setPolicy(app.id, { budgetGas: 2n * relayCeiling + 1_000n });
      const post = (route: string, body: object) =>
        request(built.app).post(route).set("Authorization", `Bearer ${token}`).send(body);
      const data = hexlify(randomBytes(MAX_CALL_DATA));
      const custom = async (chain: string) => {
        const created = await post(`/v1/${chain}/account`, { signers: ["0x00000000000000000000000000000000000000A1"] });
        expect(created.status, JSON.stringify(created.body)).to.be.oneOf([201, 202]);
        return post(`/v1/${chain}/account/${created.body.address}/custom`, { to: TARGET, data });
      };
      const refused = await custom("oeth");
      expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
      expect(refused.body).to.deep.include({ code: "BUDGET_EXCEEDED", chain: "oeth" });
      // Beyond the relay's gas cap it reserved at least the L1 fee of the relay's bytes at the chain's gas price.
      const fee = await oracle.getL1Fee(`0x${"ff".repeat(MAX_CALL_DATA + 640 + 200)}`);
      const gasPrice = BigInt(await ethers.provider.send("eth_gasPrice", []));
      expect(BigInt(refused.body.requestGas as string) - relayCeiling).to.be.at.least((fee + gasPrice - 1n) / gasPrice);
      // Without an L1 data fee, the same fits the same budget.
      expect((await custom("localhost")).status).to.equal(202);
    } finally {
      built.close();
    }
  });

  it("a Safe relay mined on an OP-stack chain is charged its receipt's L1 data fee in gas at its price; elsewhere its gas alone", () => {
    // op-geth's receipt: gasUsed 100,000 at 0.05 gwei, and an L1 fee of 0.00007 ETH (1,400,000 gas at that price).
    const receipt = { gasUsed: "0x186a0", effectiveGasPrice: "0x2faf080", l1Fee: "0x3faa25226000" };
    expect(relayCostGas(receipt)).to.equal(100_000n + 1_400_000n);
    expect(relayCostGas({ ...receipt, l1Fee: "0x3faa25226001" })).to.equal(100_000n + 1_400_001n);
    expect(relayCostGas({ gasUsed: "0x186a0", effectiveGasPrice: "0x2faf080" })).to.equal(100_000n);
  });

  it("a bundle of many operations costs one read of the oracle, and the next build within the block none", async () => {
    const { deps, target } = await loadFixture(fixture);
    const oracleReads: string[] = [];
    const watched = {
      send: (method: string, params: unknown[]) => {
        const to = (params[0] as { to?: string } | undefined)?.to;
        if (method === "eth_call" && to?.toLowerCase() === GAS_PRICE_ORACLE.toLowerCase()) oracleReads.push(method);
        return ethers.provider.send(method, params);
      },
    } as unknown as JsonRpcProvider;
    let now = 1_000_000;
    const l1DataFee = createL1DataFee(watched, () => now);
    const requests = Array.from({ length: 6 }, (_, i) => ({
      tx: stored(
        `0c1e-many-${i}`,
        `tel:1415555040${i}`,
        deps.factories.kernel,
        target.target as string,
        largeCall(target.interface.encodeFunctionData("record", [i]), 1024),
      ),
      deployed: false,
    }));
    const built = await buildUserOperations(requests, FEES, { ...deps, l1DataFee });
    expect(built.every((r) => "built" in r)).to.equal(true);
    // Before Fjord (this oracle): the upper-bound probe, then getL1Fee of a sample; one price for all six.
    expect(oracleReads).to.have.length(2);
    now += 1_500; // the same block (2 s): the price holds
    await buildUserOperations(requests.slice(0, 2), FEES, { ...deps, l1DataFee });
    expect(oracleReads).to.have.length(2);
    now += 1_000; // the next block: read again, without probing for getL1FeeUpperBound for a while
    await buildUserOperations(requests.slice(0, 2), FEES, { ...deps, l1DataFee });
    expect(oracleReads).to.have.length(3);
  });
});
