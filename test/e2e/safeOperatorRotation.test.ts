import { expect } from "chai";
import { Wallet, parseEther } from "ethers";
import { safeInterface } from "../../gateway/safe/encoding/safeArtifacts";
import {
  type SafeCall,
  encodeExecTransaction,
  safeTxHash,
  signSafeTx,
} from "../../gateway/safe/encoding/safeTransaction";
import { runAdminCli } from "../../scripts/admin/cli";
import { devKey } from "../../scripts/localStack/devKeys";
import { testKeySigner } from "../helpers/keySigners";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
type Json = Record<string, unknown>;
const OLD_OPERATOR = devKey(5);
const NEW_OPERATOR = devKey(11);

describe("Safe operator rotation (e2e: the operator's owner key swapped on every Safe, relayed and tracked)", function () {
  this.timeout(180_000);
  let setup: Setup;
  const running: ServiceProcess[] = [];
  const oldAddress = new Wallet(OLD_OPERATOR).address;
  const newAddress = new Wallet(NEW_OPERATOR).address;

  const start = async (extra: Record<string, string> = {}) => {
    const service = await startServiceProcess(setup.env(setup.chain.rpcUrl, extra));
    running.push(service);
    return service;
  };
  const api = async (service: ServiceProcess, method: "GET" | "POST", route: string, body?: unknown) => {
    const res = await fetch(`${service.url}${route}`, {
      method,
      headers: { Authorization: `Bearer ${setup.appToken}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Json;
  };
  const final = async (service: ServiceProcess, safe: string, txUuid: unknown) => {
    for (let i = 0; i < 300; i++) {
      const view = await api(service, "GET", `/v1/localhost/account/${safe}/tx/${String(txUuid)}`);
      if (view.status === "included" || view.status === "failed") return view;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`request ${String(txUuid)} never ended`);
  };
  const owners = async (safe: string) =>
    safeInterface.decodeFunctionResult(
      "getOwners",
      await setup.chain.provider.call({ to: safe, data: safeInterface.encodeFunctionData("getOwners") }),
    )[0] as string[];
  /** `npm run admin -- keys rotate-safe-operator localhost <old> <new>`, as the operator runs it. */
  const rotate = async () => {
    const lines: string[] = [];
    const code = await runAdminCli(
      ["--db", setup.database, "keys", "rotate-safe-operator", "localhost", oldAddress, newAddress],
      {
        env: { RPC_URL_LOCALHOST: setup.chain.rpcUrl },
        output: { out: (t) => void lines.push(t), err: (t) => void lines.push(t) },
        clock: () => new Date(),
      },
    );
    expect(code, lines.join("\n")).to.equal(0);
    return lines.join("\n");
  };
  const payout = async (service: ServiceProcess, safe: string) => {
    const to = Wallet.createRandom().address;
    const sent = await api(service, "POST", `/v1/localhost/account/${safe}/payout/transfer`, { to, amount: "1000" });
    expect(await final(service, safe, sent.txUuid)).to.include({ status: "included" });
    expect(await setup.chain.provider.getBalance(to)).to.equal(1000n);
  };

  before(async () => {
    setup = await prepareServiceOnChain();
  });
  after(async () => {
    await Promise.all(running.splice(0).map((service) => service.kill()));
    await setup.chain.close();
  });

  it("swaps the old operator for the new on every Safe, payouts going on throughout; the old key then moves nothing", async () => {
    const funder = await setup.chain.provider.getSigner(0);
    const first = await start();
    const safes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await api(first, "POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
      expect(await final(first, String(created.address), created.txUuid)).to.include({ status: "included" });
      safes.push(String(created.address));
      await (await funder.sendTransaction({ to: String(created.address), value: parseEther("1") })).wait();
    }
    for (const safe of safes) expect(await owners(safe)).to.include(oldAddress);
    await first.kill();

    // The service now holds the new operator key and, while the Safes are swapped, the old one.
    const second = await start({
      SAFE_OPERATOR_SIGNER_KEY: NEW_OPERATOR,
      SAFE_OPERATOR_PREVIOUS_SIGNER_KEY: OLD_OPERATOR,
    });
    await payout(second, safes[0]!); // signed by the old key, which still owns the Safe
    expect(await rotate()).to.include("0 Safe(s) now owned by");
    // Queued swaps are sent by the relayer like any request; a payout accepted meanwhile is not lost either.
    const during = await api(second, "POST", `/v1/localhost/account/${safes[1]}/payout/transfer`, {
      to: Wallet.createRandom().address,
      amount: "7",
    });
    // Until the relayer has sent both swaps: a time bound, not a count, as a loaded machine runs each round slower.
    // Each run reports the Safes it found swapped and recorded; the two swaps may land in different runs.
    const reports: string[] = [];
    let [swapped, pending] = [0, Infinity];
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && (swapped < 2 || pending > 0)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const report = await rotate();
      const counts = /^(\d+) Safe\(s\) now owned by (0x[0-9a-fA-F]{40}) and recorded so; (\d+) swap\(s\) queued/.exec(
        report,
      );
      expect(counts?.[2], report).to.equal(newAddress);
      [swapped, pending] = [swapped + Number(counts![1]), Number(counts![3])];
      reports.push(report);
    }
    expect([swapped, pending], reports.join("\n")).to.deep.equal([2, 0]);
    expect(await final(second, safes[1]!, during.txUuid)).to.include({ status: "included" });
    for (const safe of safes) {
      const now = await owners(safe);
      expect(now).to.include(newAddress).and.not.include(oldAddress);
      const view = await api(second, "POST", "/v1/localhost/accounts", {});
      const listed = (view.accounts as { address: string; owners: string[] }[]).find((a) => a.address === safe)!;
      expect(listed.owners).to.include(newAddress).and.not.include(oldAddress);
    }

    // Without the old key at all, payouts are signed by the new one; a new Safe gets the new operator.
    await second.kill();
    const third = await start({ SAFE_OPERATOR_SIGNER_KEY: NEW_OPERATOR });
    await payout(third, safes[1]!);
    const created = await api(third, "POST", "/v1/localhost/account", { signers: [Wallet.createRandom().address] });
    expect(await final(third, String(created.address), created.txUuid)).to.include({ status: "included" });
    expect(await owners(String(created.address)))
      .to.include(newAddress)
      .and.not.include(oldAddress);

    // A thief holding the old key signs a Safe transaction paying themselves: the Safe refuses it (GS026).
    const thief = Wallet.createRandom().address;
    const steal: SafeCall = { to: thief, value: parseEther("0.5"), data: "0x", operation: 0 };
    const nonce = BigInt(
      safeInterface.decodeFunctionResult(
        "nonce",
        await setup.chain.provider.call({ to: safes[0]!, data: safeInterface.encodeFunctionData("nonce") }),
      )[0] as bigint,
    );
    const hash = safeTxHash(31337n, safes[0]!, steal, nonce);
    const signature = await signSafeTx(testKeySigner(OLD_OPERATOR), hash, { purpose: "safeTransaction" });
    const attempt = funder.sendTransaction({
      to: safes[0]!,
      data: encodeExecTransaction(steal, signature),
      gasLimit: 300_000n,
    });
    const outcome = await attempt
      .then(
        async (tx) => ((await tx.wait()) ? "mined" : "dropped"),
        () => "refused",
      )
      .catch(() => "refused");
    expect(outcome).to.equal("refused");
    expect(await setup.chain.provider.getBalance(thief)).to.equal(0n);
  });
});
