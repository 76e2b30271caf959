import { expect } from "chai";
import {
  Interface,
  type Result,
  Transaction,
  Wallet,
  getBytes,
  hashMessage,
  id,
  parseEther,
  recoverAddress,
} from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import {
  CustodyPaymaster__factory,
  IEntryPoint__factory,
  KernelAccountFactory__factory,
  KernelAccount__factory,
  SponsorPaymaster__factory,
  TestTarget__factory,
} from "../../typechain-types";
import type { PackedUserOperationStruct } from "../../typechain-types/@account-abstraction/contracts/interfaces/IEntryPoint";
import {
  type ClusterService,
  type KernelSignAnswer,
  addressesOf,
  kernelSign,
  randomServiceKeys,
  startClusterService,
  until,
} from "../helpers/clusterService";
import { type ExportedRow, admin, adminWith } from "../helpers/adminCli";
import { custodyLeaf, rootOfProof } from "../../gateway/userop/custodyRoot";
import { cutAuditEnd, rechainEditedRow } from "../helpers/auditThief";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { serviceRequests } from "../helpers/serviceRequests";
import { countRows, editAuditDigest } from "../helpers/testDatabase";

const USER = "tel:14155552671";
/** Users whose wallets are new: created by the creator on code 2.1, their operations under custody roots. */
const NEW_USERS = ["tel:14155552672", "tel:14155552673", "tel:14155552674"];
const SAFE = new Interface([
  "function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)",
  "event ExecutionSuccess(bytes32 indexed txHash, uint256 payment)",
]);

describe("The signature audit log of a cluster's run (e2e: WORKERS=2, then audit verify and export on its database)", function () {
  this.timeout(180_000);
  const keys = randomServiceKeys();
  const signers = addressesOf(keys);
  /** The key each purpose is signed with. */
  const signerOf: Record<string, string> = {
    userOperation: signers.walletSigner,
    custodyRoot: signers.walletSigner,
    eip1271: signers.walletSigner,
    sponsorship: signers.sponsorSigner,
    relayerTransaction: signers.relayer,
    safeTransaction: signers.safeOperator,
  };
  let setup: Awaited<ReturnType<typeof prepareServiceOnChain>>;
  let cluster: ClusterService | undefined;
  const answers: { answer: KernelSignAnswer; hash: string; chain?: string }[] = [];
  let rows: ExportedRow[];
  /** `audit verify` as the operator runs it: with the service's AUDIT_LOG_KEY, which the database does not hold. */
  const verify = () => adminWith({ AUDIT_LOG_KEY: setup.auditLogKey }, setup.database, "audit", "verify");

  /** The phone user's EIP-1271 answer for `hash`, asked of a worker. */
  const sign = async (hash: string, chain?: string) => {
    const { answer } = await kernelSign(cluster!, setup, {
      userId: "tel:+1 415 555 2671",
      canonical: USER,
      hash,
      chain,
    });
    answers.push({ answer, hash, ...(chain ? { chain } : {}) });
  };
  /** A Safe created by the service, funded, and paid out of: the Safe operator signs the payout. */
  const safePayout = async () => {
    const settled = async (safe: string, txUuid: string) => {
      let status = "";
      await until(async () => {
        status = (await cluster!.api("GET", `/v1/localhost/account/${safe}/tx/${txUuid}`)).body.status as string;
        return status === "included" || status === "failed";
      }, "the Safe request");
      return status;
    };
    const created = await cluster!.api("POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    const safe = created.body.address as string;
    expect(await settled(safe, created.body.txUuid as string)).to.equal("included");
    await (
      await (await setup.chain.provider.getSigner(0)).sendTransaction({ to: safe, value: parseEther("1") })
    ).wait();
    const payee = Wallet.createRandom().address;
    const payout = await cluster!.api("POST", `/v1/localhost/account/${safe}/payout/transfer`, {
      to: payee,
      amount: "12345",
    });
    expect(await settled(safe, payout.body.txUuid as string)).to.equal("included");
    expect(await setup.chain.provider.getBalance(payee)).to.equal(12345n);
  };

  before(async () => {
    setup = await prepareServiceOnChain({ keys });
    cluster = await startClusterService(setup);
    // EIP-1271 answers for the wallet before and after it is deployed, a transaction, a Safe payout: every purpose.
    await sign(id("before deployment"));
    const admin0 = await setup.chain.provider.getSigner(0);
    const factory = KernelAccountFactory__factory.connect(setup.deployment.contracts.kernelFactory, admin0);
    await (await factory.createAccount(walletSalt("kernel", parseUserId(USER)))).wait();
    await sign(id("after deployment"), "localhost");
    const target = await new TestTarget__factory(admin0).deploy();
    await target.waitForDeployment();
    const requests = serviceRequests(cluster.service.url, setup.appToken, setup.userToken);
    const requestId = await requests.submit(USER, [
      { to: await target.getAddress(), data: target.interface.encodeFunctionData("record", [1]) },
    ]);
    expect(await requests.final(requestId)).to.include({ status: "included", success: true });
    const targetAddress = await target.getAddress();
    const record = (n: number) => ({ to: targetAddress, data: target.interface.encodeFunctionData("record", [n]) });
    const news = await Promise.all(NEW_USERS.map((user, i) => requests.submit(user, [record(10 + i)])));
    for (const id of news) expect(await requests.final(id)).to.include({ status: "included", success: true });
    await safePayout();
    await cluster.service.stop();
    cluster = undefined;
  });
  after(async () => {
    await cluster?.service.stop();
    await setup?.chain.close();
  });

  it("audit verify exits 0 printing the rows and the head hash; audit export prints each row as one JSON line, the last the head", async () => {
    const verified = await verify();
    expect(verified.code, verified.err).to.equal(0);
    const [, count, headSeq, head] = /verifies: (\d+) row\(s\)\.\nHead: seq (\d+) hash (0x[0-9a-f]{64})/.exec(
      verified.out,
    )!;
    const exported = await admin(setup.database, "audit", "export");
    expect(exported.code, exported.err).to.equal(0);
    rows = exported.out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as ExportedRow);
    const stored = await countRows(setup.database, "signature_audit");
    expect([rows.length, Number(count), Number(headSeq)]).to.deep.equal([stored, stored, stored]);
    expect(rows.map((row) => row.seq)).to.deep.equal(Array.from({ length: stored }, (_, i) => i + 1));
    expect(rows.at(-1)!.hash).to.equal(head);
    // Every row carries its HMAC tag: the service had AUDIT_LOG_KEY from its first signature on.
    expect(verified.out).to.include("Keyed: every row carries its HMAC tag under AUDIT_LOG_KEY.");
  });

  it("every row is signed by its purpose's key, and its signature recovers to that key over its digest", () => {
    expect(new Set(rows.map((row) => row.purpose))).to.deep.equal(new Set(Object.keys(signerOf)));
    for (const row of rows) {
      expect(row.signer, `row ${row.seq}`).to.equal(signerOf[row.purpose]);
      expect(recoverAddress(row.digest, row.signature), `row ${row.seq}`).to.equal(row.signer);
    }
  });

  it("each EIP-1271 answer given out is a row, under the app and the canonical user id, over the wallet's replay-safe hash", async () => {
    const wallet = KernelAccount__factory.connect(answers[0]!.answer.accountAddress, setup.chain.provider);
    for (const { answer, hash, chain } of answers) {
      const digest = await wallet.replaySafeHash(hash);
      const row = rows.find((r) => r.purpose === "eip1271" && r.digest === digest);
      expect(row, `the answer for ${hash}`).to.deep.include({
        signature: answer.erc1271Signature.toLowerCase(),
        appId: setup.appId,
        userId: USER,
        ...(chain ? { chain } : {}),
      });
      if (!chain) expect(row).not.to.have.property("chain");
    }
  });

  it("each relayer transaction on chain is a row, and so is every operation, sponsorship and Safe signature in it", async () => {
    const provider = setup.chain.provider;
    const entryPoint = IEntryPoint__factory.connect(setup.deployment.contracts.entryPoint, provider);
    const paymaster = SponsorPaymaster__factory.connect(setup.deployment.contracts.sponsorPaymaster, provider);
    const custodyPaymaster = CustodyPaymaster__factory.connect(setup.deployment.contracts.custodyPaymaster, provider);
    const chunks = (proof: string) =>
      Array.from({ length: (proof.length - 2) / 64 }, (_, i) => `0x${proof.slice(2 + 64 * i, 66 + 64 * i)}`);
    /** The row that logged `signature` over `digest` for `purpose`; fails if there is none. */
    const rowOf = (purpose: string, digest: string, signature: string) => {
      const row = rows.find(
        (r) => r.purpose === purpose && r.digest === digest && r.signature === signature.toLowerCase(),
      );
      expect(row, `${purpose} over ${digest} is not in the log`).not.to.equal(undefined);
      return row!;
    };
    const seen = { relayerTransaction: 0, userOperation: 0, safeTransaction: 0, rootedOperation: 0, rootedBundle: 0 };
    for (let n = 0; n <= (await provider.getBlockNumber()); n++) {
      for (const tx of (await provider.getBlock(n, true))!.prefetchedTransactions) {
        if (tx.from !== signers.relayer) continue;
        const signed = Transaction.from(tx);
        expect(rowOf("relayerTransaction", signed.unsignedHash, signed.signature!.serialized).chain).to.equal(
          "localhost",
        );
        seen.relayerTransaction += 1;
        const ops =
          tx.to === entryPoint.target
            ? (entryPoint.interface.decodeFunctionData("handleOps", tx.data)[0] as Result)
            : [];
        const rooted: string[] = [];
        for (const op of ops.map((o: Result) => o.toObject() as PackedUserOperationStruct)) {
          if (
            String(op.paymasterAndData).slice(0, 42).toLowerCase() === custodyPaymaster.target.toString().toLowerCase()
          ) {
            // Code 2.1: no signature of its own; the custody root its proof leads to is one row, listing it.
            expect(op.signature).to.equal("0x");
            const [validUntil, validAfter, rootSignature, proof] = await custodyPaymaster.parsePaymasterData(
              op.paymasterAndData,
            );
            const covered = await custodyPaymaster.getHash(op, validUntil, validAfter);
            const root = rootOfProof(custodyLeaf(covered), chunks(proof));
            rowOf("custodyRoot", await custodyPaymaster.rootDigest(root), rootSignature);
            rooted.push(covered);
            seen.rootedOperation += 1;
            continue;
          }
          const opHash = await entryPoint.getUserOpHash(op);
          const [validUntil, validAfter, sponsorSignature] = await paymaster.parsePaymasterData(op.paymasterAndData);
          const sponsorship = await paymaster.getHash(op, validUntil, validAfter);
          for (const row of [
            rowOf("userOperation", hashMessage(getBytes(opHash)), op.signature as string),
            rowOf("sponsorship", hashMessage(getBytes(sponsorship)), sponsorSignature),
          ]) {
            expect(row).to.deep.include({ appId: setup.appId, userId: USER, chain: "localhost" });
          }
          seen.userOperation += 1;
        }
        if (rooted.length > 0) {
          // One custody signature for the bundle: one row whose covered hashes are exactly its 2.1 operations.
          const roots = rows.filter((r) => r.purpose === "custodyRoot" && rooted.every((h) => r.covers?.includes(h)));
          expect(roots.map((r) => r.covers)).to.deep.equal([rooted]);
          seen.rootedBundle += 1;
        }
        const receipt = (await provider.getTransactionReceipt(tx.hash))!;
        const executed = receipt.logs.map((l) => SAFE.parseLog(l)).find((e) => e?.name === "ExecutionSuccess");
        if (executed) {
          const { signatures } = SAFE.decodeFunctionData("execTransaction", tx.data);
          const row = rowOf("safeTransaction", executed.args.txHash as string, signatures as string);
          expect(row).to.deep.include({ appId: setup.appId, chain: "localhost" });
          seen.safeTransaction += 1;
        }
      }
    }
    // The Safe's creation, its payout and the bundle at least; one operation, one Safe transaction.
    expect(seen.relayerTransaction).to.be.at.least(3);
    expect([seen.userOperation, seen.safeTransaction]).to.deep.equal([1, 1]);
    // The new users' three operations, under as many custody roots as bundles carried them, and no root besides.
    expect(seen.rootedOperation).to.equal(NEW_USERS.length);
    expect(rows.filter((r) => r.purpose === "custodyRoot")).to.have.length(seen.rootedBundle);
  });

  it("a thief with database credentials deletes the last rows: audit verify names where the log was cut", async () => {
    // The thief winds the mark of the highest seq given out back too: only its tag, which he cannot compute, is left.
    const newest = await cutAuditEnd(setup.database, 2);
    const verified = await verify();
    expect(verified.code, verified.out).to.equal(1);
    expect(verified.err).to.include(
      `Error: the signature audit log is broken at seq ${newest + 1}: the mark of the last append (seq ${newest}) ` +
        "does not carry its tag under AUDIT_LOG_KEY",
    );
  });

  it("a thief with database credentials re-chains edited rows: audit verify names the first edited row", async () => {
    // Another app named on an EIP-1271 row, and every row from it on chained again with the public SHA-256 scheme.
    const victim = rows.filter((row) => row.purpose === "eip1271")[1]!;
    await rechainEditedRow(setup.database, victim.seq, (row) => ({ ...row, appId: "app_thief" }));
    const unkeyed = await admin(setup.database, "audit", "export");
    expect(unkeyed.out).to.include('"appId":"app_thief"');

    const verified = await verify();
    expect(verified.code, verified.out).to.equal(1);
    expect(verified.err).to.include(
      `Error: the signature audit log is broken at seq ${victim.seq}: the row carries a plain hash after the keyed ` +
        "rows from 1: it was changed, or written, and chained again by someone without AUDIT_LOG_KEY",
    );
  });

  it("an attacker who edits one row's digest in the database is named: audit verify exits 1 at that row's seq", async () => {
    const victim = rows.find((row) => row.purpose === "eip1271")!;
    // The table refuses the edit; whoever can write the database goes around its trigger.
    const refusal = await editAuditDigest(setup.database, victim.seq, id("what the thief signed"));
    expect(refusal).to.include("the signature audit log is append-only");

    const verified = await verify();
    expect(verified.code).to.equal(1);
    expect(verified.out).to.equal("");
    expect(verified.err).to.include(
      `Error: the signature audit log is broken at seq ${victim.seq}: the row does not hash to its hash: it was changed ` +
        `(the ${victim.seq - 1} row(s) before it verify)`,
    );
  });
});
