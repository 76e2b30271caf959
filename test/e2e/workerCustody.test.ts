import { expect } from "chai";
import { getBytes, id } from "ethers";
import { createPublicClient, http } from "viem";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { KernelAccountFactory__factory, KernelAccount__factory, TestTarget__factory } from "../../typechain-types";
import {
  type ClusterService,
  type KernelSignAnswer,
  addressesOf,
  kernelSign,
  randomServiceKeys,
  startClusterService,
} from "../helpers/clusterService";
import { childrenOf, environEntries, environOf, findInMemory, parentOf } from "../helpers/procfs";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { serviceRequests } from "../helpers/serviceRequests";

/** Every transaction-key setting, by reference and raw, and the audit log's HMAC key: none may reach an HTTP worker. */
const KEY_SETTINGS = [
  "AUDIT_LOG_KEY",
  "WALLET_SIGNER_KEY",
  "SPONSOR_SIGNER_KEY",
  "RELAYER_SIGNER_KEY",
  "SAFE_OPERATOR_SIGNER_KEY",
  "WALLET_SIGNER",
  "SPONSOR_SIGNER",
  "RELAYER_SIGNER",
  "SAFE_OPERATOR_SIGNER",
];
const USER = "tel:14155552671";

/** The ways a key may sit in memory: its hex either case, as a one-byte or a two-byte (UTF-16) string, its raw bytes. */
const spellings = (key: string): Buffer[] => {
  const hex = key.slice(2);
  return [
    Buffer.from(hex.toLowerCase()),
    Buffer.from(hex.toUpperCase()),
    Buffer.from(hex.toLowerCase(), "utf16le"),
    Buffer.from(getBytes(key)),
  ];
};

describe("HTTP workers hold no custody key (e2e: WORKERS=2 with raw keys; the attacker runs code in a worker)", function () {
  this.timeout(120_000);
  const keys = randomServiceKeys();
  const keyNames = Object.keys(keys) as (keyof typeof keys)[];
  let setup: Awaited<ReturnType<typeof prepareServiceOnChain>>;
  let cluster: ClusterService;
  /** HTTP worker id → pid, of the workers running. */
  const workers = new Map<number, number>();

  const sign = (hash: string, chain?: string) =>
    kernelSign(cluster, setup, { userId: "tel:+1 415 555 2671", canonical: USER, hash, chain });
  const verifyHash = (answer: KernelSignAnswer, hash: string) =>
    createPublicClient({ transport: http(setup.chain.rpcUrl) }).verifyHash({
      address: answer.accountAddress as `0x${string}`,
      hash: hash as `0x${string}`,
      signature: answer.signature as `0x${string}`,
    });
  /** The key settings an attacker finds in the process's start-up environment, each with what it holds. */
  const keySettingsIn = (pid: number) =>
    environEntries(pid).filter((entry) => {
      const name = entry.slice(0, entry.indexOf("="));
      return KEY_SETTINGS.includes(name) || (name.endsWith("_SIGNER") && name !== "CCIP_SIGNER");
    });
  /** The keys whose values an attacker finds anywhere in the process's start-up environment (AUDIT_LOG_KEY too). */
  const keyValuesIn = (pid: number) => {
    const environ = environOf(pid).toString("latin1").toLowerCase();
    const found: string[] = keyNames.filter((name) => environ.includes(keys[name].slice(2).toLowerCase()));
    return environ.includes(setup.auditLogKey) ? [...found, "auditLogKey"] : found;
  };
  /** Which keys an attacker reading the process's whole memory finds, in any spelling. */
  const keysInMemory = (pid: number) => {
    const perKey = spellings(keys.walletSigner).length;
    const found = findInMemory(
      pid,
      keyNames.flatMap((name) => spellings(keys[name])),
    );
    return keyNames.filter((_, k) => [...found].some((i) => Math.floor(i / perKey) === k));
  };

  before(async () => {
    setup = await prepareServiceOnChain({ keys });
    cluster = await startClusterService(setup);
    for (const worker of [1, 2]) workers.set(worker, await cluster.workerPid(worker));
  });
  after(async () => {
    await cluster?.service.stop();
    await setup?.chain.close();
  });

  it("the HTTP workers are the primary's only child processes", () => {
    expect(childrenOf(cluster.primary).sort()).to.deep.equal([...workers.values()].sort());
    for (const pid of workers.values()) expect(parentOf(pid)).to.equal(cluster.primary);
  });

  it("reading a worker's environment finds no transaction key setting and none of the keys' values, only their addresses", () => {
    for (const pid of workers.values()) {
      expect(keySettingsIn(pid)).to.deep.equal([]);
      expect(keyValuesIn(pid)).to.deep.equal([]);
      const handedOver = environEntries(pid).find((e) => e.startsWith("IDWALLET_CUSTODY_ADDRESSES="))!;
      expect(JSON.parse(handedOver.slice(handedOver.indexOf("=") + 1))).to.deep.equal(addressesOf(keys));
    }
  });

  it("reading the primary's start-up environment from a worker (/proc/<parent>/environ) finds none of the keys' values", () => {
    for (const pid of workers.values()) {
      const primary = parentOf(pid);
      expect(primary).to.equal(cluster.primary);
      expect(keyValuesIn(primary)).to.deep.equal([]);
      // The primary was started with them: their settings are still there, emptied (AUDIT_LOG_KEY's too).
      expect(keySettingsIn(primary)).to.have.members(
        KEY_SETTINGS.filter((name) => name.endsWith("_KEY")).map((name) => `${name}=`),
      );
    }
  });

  it("a worker's configuration has the keys' addresses, not the keys: /v1/networks from each worker names the Safe operator", async () => {
    const servedBy = new Set<number>();
    for (let n = 0; servedBy.size < 2 && n < 8; n++) {
      const res = await cluster.api("GET", "/v1/networks");
      servedBy.add(res.worker);
      expect(res.body.safeOperator).to.equal(addressesOf(keys).safeOperator);
    }
    expect([...servedBy].sort()).to.deep.equal([1, 2]);
  });

  it("a worker's /v1/kernel/sign answer, signed by the primary over IPC, verifies on chain: ERC-6492 before the wallet exists, EIP-1271 after", async () => {
    // Both workers answer; neither holds the wallet key, so each signature came from the primary.
    const servedBy = new Set<number>();
    for (let n = 0; servedBy.size < 2 && n < 8; n++) {
      const hash = id(`pay ${n} USDC to bob`);
      const { answer, worker } = await sign(hash);
      servedBy.add(worker);
      expect(answer).to.include({ userId: USER, deployed: null });
      expect(await verifyHash(answer, hash)).to.equal(true);
      expect(await verifyHash(answer, id("something else"))).to.equal(false);
    }
    expect([...servedBy].sort()).to.deep.equal([1, 2]);

    const factory = KernelAccountFactory__factory.connect(
      setup.deployment.contracts.kernelFactory,
      await setup.chain.provider.getSigner(0),
    );
    await (await factory.createAccount(walletSalt("kernel", parseUserId(USER)))).wait();
    const hash = id("deployed now");
    const { answer } = await sign(hash, "localhost");
    expect(answer).to.include({ deployed: true, chain: "localhost" });
    expect(answer.signature).to.equal(answer.erc1271Signature);
    const wallet = KernelAccount__factory.connect(answer.accountAddress, setup.chain.provider);
    expect(await wallet.isValidSignature(hash, answer.signature)).to.equal("0x1626ba7e");
    expect(await wallet.isValidSignature(id("other"), answer.signature)).to.equal("0xffffffff");
  });

  it("a phone user's transaction accepted by a worker is included: the primary signed and sponsored its operation", async () => {
    const target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    const requests = serviceRequests(cluster.service.url, setup.appToken, setup.userToken);
    const requestId = await requests.submit(USER, [
      { to: await target.getAddress(), data: target.interface.encodeFunctionData("record", [7]) },
    ]);
    expect(await requests.final(requestId)).to.include({ status: "included", success: true });
  });

  it("reading a worker's whole memory after all that finds none of the keys in any spelling; the same scan finds each in the primary's", () => {
    for (const pid of workers.values()) expect(keysInMemory(pid)).to.deep.equal([]);
    expect(keysInMemory(cluster.primary)).to.deep.equal(keyNames);
    // Nor the audit log's HMAC key, which the primary holds.
    const auditKey = spellings(`0x${setup.auditLogKey}`);
    for (const pid of workers.values()) expect(findInMemory(pid, auditKey).size).to.equal(0);
    expect(findInMemory(cluster.primary, auditKey).size).to.be.greaterThan(0);
  });

  it("a worker killed with SIGKILL is replaced by one that holds no key either, and signing through it still works", async () => {
    process.kill(workers.get(1)!, "SIGKILL");
    await cluster.waitFor((l) => l.msg === "worker died; starting another");
    workers.delete(1);
    workers.set(3, await cluster.workerPid(3));
    expect(childrenOf(cluster.primary).sort()).to.deep.equal([...workers.values()].sort());
    expect(keySettingsIn(workers.get(3)!)).to.deep.equal([]);
    expect(keyValuesIn(workers.get(3)!)).to.deep.equal([]);

    let servedByReplacement = false;
    for (let n = 0; !servedByReplacement && n < 8; n++) {
      const hash = id(`after the replacement ${n}`);
      const { answer, worker } = await sign(hash);
      expect(await verifyHash(answer, hash)).to.equal(true);
      servedByReplacement = worker === 3;
    }
    expect(servedByReplacement, "no request reached the replacement").to.equal(true);
    expect(keysInMemory(workers.get(3)!)).to.deep.equal([]);
  });
});
