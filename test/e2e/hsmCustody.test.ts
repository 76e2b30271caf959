import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EnsPlugin, JsonRpcProvider, Network, Wallet, computeAddress, id, parseEther } from "ethers";
import { createPublicClient, http } from "viem";
import type { CustodyKey } from "../../gateway/config/custodySettings";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { runAdminCli } from "../../scripts/admin/cli";
import { type CustodyToken, createCustodyToken, withTokenKeys } from "../../scripts/softhsm/custodyToken";
import {
  IdwalletResolver__factory,
  KernelAccountFactory__factory,
  KernelAccount__factory,
  TestTarget__factory,
  TestToken__factory,
  type TestTarget,
  type TestToken,
} from "../../typechain-types";
import { postJson } from "../helpers/http";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

type Setup = Awaited<ReturnType<typeof prepareServiceOnChain>>;
type Json = Record<string, unknown>;
const PAYER = "tel:14155550141";
const SIGNER_ONLY = "tel:14155550142";

/** A provider configured as a wallet pointed at this chain would be: its ENS registry attached. */
function walletProvider(rpcUrl: string, registry: string): JsonRpcProvider {
  const network = new Network("localhost", 31337);
  network.attachPlugin(new EnsPlugin(registry, 31337));
  return new JsonRpcProvider(rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
}

describe("Every custody key in an HSM (e2e: SoftHSM2 through PKCS#11, the service in its own process)", function () {
  this.timeout(120_000);
  let setup: Setup;
  let token: CustodyToken;
  let tokenDir: string;
  let service: ServiceProcess;
  let chain: JsonRpcProvider;
  let erc20: TestToken;
  let target: TestTarget;

  const call = async (method: "GET" | "POST", route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${service.url}${route}`, {
      method,
      headers: { Authorization: `Bearer ${setup.appToken}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Json;
  };
  /** A Safe request once it is included or failed. */
  const safeFinal = async (safe: string, txUuid: string): Promise<Json> => {
    for (let round = 0; round < 6; round++) {
      const view = await call("GET", `/v1/localhost/account/${safe}/tx/${txUuid}?wait=true`);
      if (view.status === "included" || view.status === "failed") return view;
    }
    throw new Error(`Safe request ${txUuid} not final after six waits`);
  };
  const addressOf = (key: CustodyKey) => token.keys[key]!.address;
  const kernelSign = async (userId: string, hash: string, chainName?: string) =>
    postJson(
      `${service.url}/v1/kernel/sign`,
      { userId, hash, auth: await setup.userToken(userId), ...(chainName ? { chain: chainName } : {}) },
      setup.appToken,
    );

  before(async () => {
    setup = await prepareServiceOnChain({ ens: true });
    tokenDir = mkdtempSync(path.join(tmpdir(), "idwallet-hsm-e2e-"));
    // The very keys the deployment trusts, imported: the owner account, paymaster and resolver accept them.
    token = await createCustodyToken({ dir: tokenDir, token: "idwallet-e2e", keys: setup.keys });
    service = await startServiceProcess(withTokenKeys(setup.env(setup.chain.rpcUrl), token));
    chain = new JsonRpcProvider(setup.chain.rpcUrl, undefined, { cacheTimeout: -1 });
    const admin = await chain.getSigner(0);
    const resolver = IdwalletResolver__factory.connect(setup.deployment.contracts.ensResolver, admin);
    await (await resolver.setUrls([`${service.url}/ccip/{sender}/{data}.json`])).wait();
    erc20 = await new TestToken__factory(admin).deploy();
    target = await new TestTarget__factory(admin).deploy();
    await Promise.all([erc20.waitForDeployment(), target.waitForDeployment()]);
  });
  after(async () => {
    await service?.stop();
    chain?.destroy();
    await setup?.chain.close();
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  });

  it("runs with every key a pkcs11: reference: no raw key in the process's environment, the PIN in a 0600 file", () => {
    const environ = readFileSync(`/proc/${service.pid}/environ`, "utf8").split("\0");
    const names = environ.map((entry) => entry.slice(0, entry.indexOf("=")));
    for (const raw of [
      "WALLET_SIGNER_KEY",
      "SPONSOR_SIGNER_KEY",
      "RELAYER_SIGNER_KEY",
      "SAFE_OPERATOR_SIGNER_KEY",
      "CCIP_SIGNER_KEYS",
    ])
      expect(names).to.not.include(raw);
    const text = environ.join("\n").toLowerCase();
    for (const key of Object.values(setup.keys)) expect(text).to.not.include(key.slice(2).toLowerCase());
    const pin = readFileSync(token.pinFile, "utf8");
    expect(text).to.not.include(pin.toLowerCase());
    expect(statSync(token.pinFile).mode & 0o777).to.equal(0o600);
    for (const setting of [
      "WALLET_SIGNER",
      "SPONSOR_SIGNER",
      "RELAYER_SIGNER",
      "SAFE_OPERATOR_SIGNER",
      "CCIP_SIGNER",
    ]) {
      expect(environ.find((entry) => entry.startsWith(`${setting}=`))).to.match(/^[A-Z_]+=pkcs11:token=idwallet-e2e;/);
    }
  });

  it("includes a phone user's batch (three calls, deploying the wallet) with success, signed in the token", async () => {
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    const [bob, carol] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const resolved = await postJson(`${service.url}/v1/resolver`, { userIds: PAYER });
    const wallet = (resolved.body.users as { accountAddress: string }[])[0]!.accountAddress;
    await (await erc20.mint(wallet, 1000n)).wait();
    const id = await requests.submit(PAYER, [
      { to: await erc20.getAddress(), data: erc20.interface.encodeFunctionData("transfer", [bob, 300n]) },
      { to: await erc20.getAddress(), data: erc20.interface.encodeFunctionData("transfer", [carol, 200n]) },
      { to: await target.getAddress(), data: target.interface.encodeFunctionData("record", [41]) },
    ]);
    const final = await requests.final(id);
    expect(final).to.include({ status: "included", success: true, sender: wallet });
    expect(await erc20.balanceOf(bob)).to.equal(300n);
    expect(await erc20.balanceOf(carol)).to.equal(200n);
    expect(await erc20.balanceOf(wallet)).to.equal(500n);
    // The relayer in the token sent the bundle.
    const bundle = (await chain.getTransaction(final.transactionHash!))!;
    expect(bundle.from).to.equal(addressOf("relayer"));
  });

  it("creates a Safe whose operator owner is the token's key, and pays out from it", async () => {
    const networks = await call("GET", "/v1/networks");
    expect(networks.safeOperator).to.equal(addressOf("safeOperator"));
    const customer = Wallet.createRandom().address;
    const created = (await call("POST", "/v1/localhost/account", { signers: [customer] })) as {
      address: string;
      txUuid: string;
      owners: string[];
    };
    expect(created.owners).to.deep.equal([customer, addressOf("safeOperator")]);
    expect(await safeFinal(created.address, created.txUuid)).to.include({ status: "included", action: "create" });
    await (await (await chain.getSigner(0)).sendTransaction({ to: created.address, value: parseEther("1") })).wait();
    const payee = Wallet.createRandom().address;
    const payout = await call("POST", `/v1/localhost/account/${created.address}/payout/transfer`, {
      to: payee,
      amount: "12345",
    });
    expect(await safeFinal(created.address, String(payout.txUuid))).to.include({
      status: "included",
      action: "transfer",
    });
    expect(await chain.getBalance(payee)).to.equal(12345n);
  });

  it("signs with the wallet key in the token: ERC-6492 for an undeployed wallet, EIP-1271 once deployed", async () => {
    const hash = id("pay 5 USDC to bob") as `0x${string}`;
    const undeployed = await kernelSign(SIGNER_ONLY, hash);
    expect(undeployed.status).to.equal(200);
    expect(undeployed.body).to.include({ deployed: null });
    const client = createPublicClient({ transport: http(setup.chain.rpcUrl) });
    const address = undeployed.body.accountAddress as `0x${string}`;
    const signature = undeployed.body.signature as `0x${string}`;
    expect(await client.verifyHash({ address, hash, signature })).to.equal(true);
    expect(await client.verifyHash({ address, hash: id("other") as `0x${string}`, signature })).to.equal(false);

    const factory = KernelAccountFactory__factory.connect(
      setup.deployment.contracts.kernelFactory,
      await chain.getSigner(0),
    );
    await (await factory.createAccount(walletSalt("kernel", parseUserId(SIGNER_ONLY)))).wait();
    const deployed = await kernelSign(SIGNER_ONLY, hash, "localhost");
    expect(deployed.status).to.equal(200);
    expect(deployed.body).to.include({ deployed: true, chain: "localhost" });
    const account = KernelAccount__factory.connect(address, chain);
    expect(await account.isValidSignature(hash, deployed.body.signature as string)).to.equal("0x1626ba7e");
    expect(await account.isValidSignature(id("other"), deployed.body.signature as string)).to.equal("0xffffffff");
  });

  it("answers CCIP-read with the token's CCIP key, and the resolver verifies the answer on chain", async () => {
    const provider = walletProvider(setup.chain.rpcUrl, setup.ensRegistry!);
    try {
      // A text record comes only from the gateway: ethers follows the OffchainLookup to /ccip and has the resolver
      // check the signature (resolveWithProof), which accepts only its signer set: the CCIP key in the token.
      const resolver = await provider.getResolver("alice.github.idwallet.eth");
      expect(await resolver!.getText("com.github")).to.equal("alice");
      expect(await resolver!.getText("idwallet.userId")).to.equal("github:alice");
      const onChain = IdwalletResolver__factory.connect(setup.deployment.contracts.ensResolver, provider);
      expect(await onChain.isSigner(addressOf("ccipSigner"))).to.equal(true);
    } finally {
      provider.destroy();
    }
  });

  it("logged every transaction-key signature with the token keys as signers, and audit verify passes", async () => {
    const out: string[] = [];
    const cli = (...argv: string[]) =>
      runAdminCli(["--db", setup.database, ...argv], {
        // The service's AUDIT_LOG_KEY: its rows are tagged under it.
        env: { AUDIT_LOG_KEY: setup.auditLogKey },
        output: { out: (text) => out.push(text), err: (text) => out.push(text) },
        clock: () => new Date(),
      });
    expect(await cli("audit", "verify"), out.join("\n")).to.equal(0);
    expect(out.join("\n")).to.match(/The signature audit log verifies: \d+ row\(s\)/);
    out.length = 0;
    expect(await cli("audit", "export")).to.equal(0);
    const rows = out.map((line) => JSON.parse(line) as { purpose: string; signer: string; userId?: string });
    const signersOf = (purpose: string) => [...new Set(rows.filter((r) => r.purpose === purpose).map((r) => r.signer))];
    // New wallets run code 2.1: the wallet key signs one custody root per bundle, and nothing per operation.
    expect(signersOf("custodyRoot")).to.deep.equal([addressOf("walletSigner")]);
    expect(signersOf("userOperation")).to.deep.equal([]);
    expect(signersOf("sponsorship")).to.deep.equal([]);
    expect(signersOf("relayerTransaction")).to.deep.equal([addressOf("relayer")]);
    expect(signersOf("safeTransaction")).to.deep.equal([addressOf("safeOperator")]);
    expect(signersOf("eip1271")).to.deep.equal([addressOf("walletSigner")]);
    expect(rows.filter((r) => r.purpose === "eip1271").map((r) => r.userId)).to.include(SIGNER_ONLY);
    // The token's keys are the dev keys the deployment trusts, not keys of their own.
    expect(addressOf("walletSigner")).to.equal(computeAddress(setup.keys.walletSigner));
  });
});
