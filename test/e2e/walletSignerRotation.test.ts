import { expect } from "chai";
import { Wallet, getBytes, id } from "ethers";
import { createAuditLog } from "../../gateway/custody/audit";
import { createEnvKeySigner } from "../../gateway/custody/envKey";
import { auditedSigner } from "../../gateway/custody/keySigner";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { devKey } from "../../scripts/localStack/devKeys";
import { runAdminCli } from "../../scripts/admin/cli";
import {
  KernelAccountFactory__factory,
  KernelAccount__factory,
  OwnerAccount__factory,
  TestTarget__factory,
} from "../../typechain-types";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
const ALICE = "tel:14155550111";
const NEW_SIGNER = devKey(9);

describe("Wallet signer rotation (e2e: the owner key of every wallet replaced, nothing in flight lost)", function () {
  this.timeout(120_000);
  let setup: Setup;
  const running: ServiceProcess[] = [];

  /** Runs `npm run admin -- keys …` as the operator would, the chain's admin key at hand; returns exit code and text. */
  const keys = async (...argv: string[]) => {
    const lines: string[] = [];
    const output = { out: (text: string) => void lines.push(text), err: (text: string) => void lines.push(text) };
    const env = {
      RPC_URL_LOCALHOST: setup.chain.rpcUrl,
      CONTRACT_OWNER_ACCOUNT: setup.deployment.contracts.ownerAccount,
      ADMIN_PRIVATE_KEY: devKey(0),
    };
    const code = await runAdminCli(["--db", setup.database, "keys", ...argv], {
      env,
      output,
      clock: () => new Date(),
    });
    return { code, text: lines.join("\n") };
  };
  const sign = async (service: ServiceProcess, hash: string) => {
    const res = await fetch(`${service.url}/v1/kernel/sign`, {
      method: "POST",
      headers: { Authorization: `Bearer ${setup.appToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ userId: ALICE, hash, auth: await setup.userToken(ALICE), chain: "localhost" }),
    });
    expect(res.status).to.equal(200);
    return (await res.json()) as { accountAddress: string; erc1271Signature: string };
  };

  before(async () => {
    setup = await prepareServiceOnChain();
  });
  after(async () => {
    await Promise.all(running.splice(0).map((service) => service.kill()));
    await setup.chain.close();
  });

  it("refuses to retire the key the service still signs with (the only signer, or before the restart on the new one)", async () => {
    // The service signed an EIP-1271 answer with the old key, as its signing log shows.
    const database = await openDatabase(setup.database);
    try {
      const log = createAuditLog(createRepositories(database.db, () => new Date()).auditLog, () => new Date());
      const key = auditedSigner(createEnvKeySigner(devKey(1), "the old key"), log);
      await key.sign(getBytes(id("signed by the running service")), { purpose: "eip1271", userId: ALICE });
    } finally {
      await database.close();
    }
    const owner = OwnerAccount__factory.connect(setup.deployment.contracts.ownerAccount, setup.chain.provider);
    const oldSigner = new Wallet(devKey(1)).address;
    const refused = await keys("retire-wallet-signer", "localhost", oldSigner);
    expect(refused.code).to.equal(1);
    expect(refused.text).to.include(`the service still signs with ${oldSigner}`);
    expect(await owner.isSigner(oldSigner)).to.equal(true);
  });

  it("adds the new key, restarts on it with requests in flight, retires the old key once they are done", async () => {
    const admin = await setup.chain.provider.getSigner(0);
    const target = await new TestTarget__factory(admin).deploy();
    const record = (n: number) => ({
      to: target.target as string,
      data: target.interface.encodeFunctionData("record", [n]),
    });
    const alice = deriveWalletAddress(setup.deployment.contracts.kernelFactory, "kernel", parseUserId(ALICE));
    await (
      await KernelAccountFactory__factory.connect(setup.deployment.contracts.kernelFactory, admin).createAccount(
        walletSalt("kernel", parseUserId(ALICE)),
      )
    ).wait();
    const owner = OwnerAccount__factory.connect(setup.deployment.contracts.ownerAccount, setup.chain.provider);
    const wallet = KernelAccount__factory.connect(alice, setup.chain.provider);
    const oldSigner = new Wallet(devKey(1)).address;
    const newSigner = new Wallet(NEW_SIGNER).address;

    // Before: the old key signs, and its EIP-1271 answer holds on chain.
    const first = await startServiceProcess(setup.env(setup.chain.rpcUrl));
    running.push(first);
    const requests = (service: ServiceProcess) => serviceRequests(service.url, setup.appToken, setup.userToken);
    const before = await sign(first, id("before"));
    expect(before.accountAddress).to.equal(alice);
    expect(await wallet.isValidSignature(id("before"), before.erc1271Signature)).to.equal("0x1626ba7e");

    // 1. The admin lets the new key sign beside the old one.
    expect(await keys("add-wallet-signer", "localhost", newSigner)).to.include({ code: 0 });
    expect([await owner.isSigner(oldSigner), await owner.isSigner(newSigner)]).to.deep.equal([true, true]);
    expect((await keys("add-wallet-signer", "localhost", newSigner)).text).to.include("already signs");

    // Requests accepted and built under the old key, then the service restarts on the new one with them in flight.
    await setup.chain.provider.send("evm_setAutomine", [false]);
    const inFlight = [
      await requests(first).submit(ALICE, [record(1), record(2)]),
      await requests(first).submit("tel:14155550112", [record(3)]),
    ];
    const deadline = Date.now() + 30_000;
    while ((await requests(first).view(inFlight[0]!)).status !== "submitted") {
      if (Date.now() > deadline) throw new Error("the first bundle was never sent");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await first.kill();
    // 2. Retiring the old key now would strand the operation it signed, which is still in the mempool: refused.
    const early = await keys("retire-wallet-signer", "localhost", oldSigner);
    expect(early.code).to.equal(1);
    expect(early.text).to.include(`carry an operation ${oldSigner} signed (${inFlight[0]}`);
    expect(await owner.isSigner(oldSigner)).to.equal(true);

    const second = await startServiceProcess(setup.env(setup.chain.rpcUrl, { WALLET_SIGNER_KEY: NEW_SIGNER }));
    running.push(second);
    await setup.chain.provider.send("evm_setAutomine", [true]);
    await setup.chain.provider.send("evm_mine", []);
    for (const request of inFlight)
      expect(await requests(second).final(request)).to.include({ status: "included", success: true });
    const after = await requests(second).submit(ALICE, [record(4)]);
    expect(await requests(second).final(after)).to.include({ status: "included", success: true });

    // 3. Nothing in flight needs the old key any more: the admin removes it.
    const retired = await keys("retire-wallet-signer", "localhost", oldSigner);
    expect(retired, retired.text).to.include({ code: 0 });
    expect([await owner.isSigner(oldSigner), await owner.isSigner(newSigner)]).to.deep.equal([false, true]);

    // The old key's signatures are refused on chain; the new key's hold; the wallet did not move.
    expect(await wallet.isValidSignature(id("before"), before.erc1271Signature)).to.equal("0xffffffff");
    const rotated = await sign(second, id("after"));
    expect(rotated.accountAddress).to.equal(alice);
    expect(await wallet.isValidSignature(id("after"), rotated.erc1271Signature)).to.equal("0x1626ba7e");
    const last = await requests(second).submit(ALICE, [record(5)]);
    expect(await requests(second).final(last)).to.include({ status: "included", success: true });
  });
});
