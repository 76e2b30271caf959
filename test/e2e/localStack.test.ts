import { expect } from "chai";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Contract, JsonRpcProvider, Wallet, computeAddress, parseEther, parseUnits } from "ethers";
import { stakePolicyOf } from "../../gateway/chains/stakePolicy";
import { readPortfolio } from "../../gateway/dust/chainReads";
import { MULTICALL3_ADDRESS } from "../../gateway/dust/multicall3";
import { parseUserId } from "../../gateway/identity/userId";
import { openDatabase } from "../../gateway/storage/database";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { readStake } from "../../scripts/deployment/entityStake";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { KernelAccountFactory__factory } from "../../typechain-types";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken } from "../helpers/stackClients";
import { banner, chainNotice, demoTransaction } from "../../scripts/localStack/banner";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { onPostgres } from "../helpers/testDatabase";

describe("Local stack (e2e: real chain over HTTP, real database, real HTTP API)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-"));
  let stack: LocalStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("resolves an id, and the factory then deploys the wallet exactly at the resolved address", async () => {
    stack = await startTestStack(dataDir);
    const { status, body } = await postJson(`${stack.apiUrl}/v1/resolver`, { userIds: "github:e2e-alice" });
    expect(status).to.equal(200);
    const [user] = body.users as { accountAddress: string }[];

    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    expect(await chain.getCode(user!.accountAddress)).to.equal("0x");
    const factory = KernelAccountFactory__factory.connect(
      stack.deployment.contracts.kernelFactory,
      await chain.getSigner(0),
    );
    await (await factory.createAccount(walletSalt("kernel", parseUserId("github:e2e-alice")))).wait();
    expect(await chain.getCode(user!.accountAddress)).to.not.equal("0x");
    chain.destroy();
  });

  it("shows the local chain's RPC and contract addresses in /v1/networks", async () => {
    stack = await startTestStack(dataDir);
    const res = await fetch(`${stack.apiUrl}/v1/networks`);
    const body = (await res.json()) as { networks: Record<string, unknown>[]; safeOperator: string };
    const { networks } = body;
    const local = networks.find((n) => n.name === "localhost");
    // Its RPC answered its chain id as the service started: reachable, without a call of this request's.
    expect(local).to.include({ chainId: 31337, configured: true, served: true, reachable: true, rpcUrl: stack.rpcUrl });
    expect(local?.contractAddresses).to.deep.include({
      entryPoint: stack.deployment.contracts.entryPoint,
      kernelFactory: stack.deployment.contracts.kernelFactory,
    });
    // Safe 1.5.0: the deployed contracts, each with code on the chain, and the operator's owner address.
    expect(local?.safeContracts).to.deep.equal(stack.safe);
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    for (const address of Object.values(stack.safe)) expect(await chain.getCode(address)).to.not.equal("0x");
    const safe = new Contract(stack.safe.singleton, ["function VERSION() view returns (string)"], chain);
    expect(await safe.getFunction("VERSION")()).to.equal("1.5.0");
    // Dust interface: Multicall3 at its canonical address answers aggregate3 there, reading the test ETH/USD feed.
    expect(stack.dust.multicall3).to.equal(MULTICALL3_ADDRESS);
    expect(await chain.getCode(MULTICALL3_ADDRESS)).to.have.length.above(2);
    const admin = (await chain.getSigner(0)).address;
    const reads = await readPortfolio(chain, admin, [stack.demoTokens.erc20], [stack.dust.ethUsdFeed]);
    expect(reads.nativeBalance).to.equal(await chain.getBalance(admin));
    expect(reads.tokens.get(stack.demoTokens.erc20)).to.deep.equal({ balance: 0n, decimals: 18 });
    expect(reads.feeds.get(stack.dust.ethUsdFeed)).to.include({ answer: parseUnits("3000", 8), decimals: 8 });
    chain.destroy();
    expect(body.safeOperator).to.equal(computeAddress(stack.config.safe.operatorKey!));
    const health = await fetch(`${stack.apiUrl}/health`);
    expect(health.status).to.equal(200);
  });

  it("stakes the SponsorPaymaster at the EntryPoint at the local chain's minimum, so a bundler in safe mode accepts it", async () => {
    stack = await startTestStack(dataDir);
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const c = stack.deployment.contracts;
    const local = stakePolicyOf("localhost")!;
    expect(await readStake(chain, c.entryPoint, c.sponsorPaymaster)).to.deep.include({
      staked: true,
      stake: local.minimumStakeWei,
      unstakeDelaySec: local.unstakeDelaySeconds,
      withdrawTime: 0,
    });
    chain.destroy();
  });

  it("starts again on the same data directory with the same addresses and demo app credentials; its files private, secrets sealed", async () => {
    stack = await startTestStack(dataDir);
    const first = {
      contracts: stack.deployment.contracts,
      safe: stack.safe,
      dust: stack.dust,
      clientId: stack.demoApp.clientId,
      secret: stack.demoApp.clientSecret,
    };
    // Records of this chain, for the restart to clear with it: a Safe, and a wallet's transaction (included).
    const token = await demoAppToken(stack);
    const safe = await postJson(
      `${stack.apiUrl}/v1/localhost/account`,
      { signers: [Wallet.createRandom().address] },
      token,
    );
    expect(safe.status).to.equal(202);
    const accepted = await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token);
    expect(accepted.status).to.equal(202);
    for (const route of [
      `/v1/localhost/account/${String(safe.body.address)}/tx/${String(safe.body.txUuid)}`,
      `/v1/kernel/tx/${String(accepted.body.id)}`,
    ]) {
      const final = await fetch(`${stack.apiUrl}${route}?wait=true`, { headers: { Authorization: `Bearer ${token}` } });
      expect(await final.json(), route).to.include({ status: "included" });
    }
    const databasePath = databaseLocation(stack.config);
    const secretsFile = path.join(dataDir, "dev-secrets.json");
    // A file's mode is SQLite's question; on PostgreSQL the server keeps the data and only the secrets file is ours.
    const databaseFiles = onPostgres() ? [] : [databasePath, `${databasePath}-wal`, `${databasePath}-shm`];
    for (const file of [...databaseFiles, secretsFile]) {
      expect(statSync(file).mode & 0o777, file).to.equal(0o600);
    }
    // The audit log's HMAC key is the stack's own, generated once and kept with its other secrets.
    const devSecrets = JSON.parse(readFileSync(secretsFile, "utf8")) as Record<string, string>;
    expect(devSecrets.auditLogKey).to.match(/^[0-9a-f]{64}$/);
    expect(stack.config.auditLogKey).to.equal(devSecrets.auditLogKey);
    const demoRow = async () => {
      const database = await openDatabase(databasePath);
      try {
        return await database.db
          .selectFrom("app_providers")
          .selectAll()
          .where("provider", "=", "demo")
          .executeTakeFirstOrThrow();
      } finally {
        await database.close();
      }
    };
    expect(JSON.parse((await demoRow()).verification).key).to.have.keys(["kind", "sealedSecret"]);
    await stack.close();
    // A data directory as a version before sealing left it: the demo secret in plain text, no secrets key.
    const { secretsKey: _key, ...olderSecrets } = JSON.parse(readFileSync(secretsFile, "utf8")) as Record<
      string,
      string
    >;
    writeFileSync(secretsFile, JSON.stringify(olderSecrets));
    const older = await openDatabase(databasePath);
    const plain = "a-demo-secret-stored-in-plain-text-0123456";
    await older.db
      .updateTable("app_providers")
      .set({ verification: JSON.stringify({ key: { kind: "hs256", secret: plain } }) })
      .where("provider", "=", "demo")
      .execute();
    await older.close();
    stack = await startTestStack(dataDir);
    expect((await demoRow()).verification).to.not.include(plain);
    expect(JSON.parse(readFileSync(secretsFile, "utf8"))).to.have.keys(["tokenSecret", "secretsKey", "auditLogKey"]);
    expect(stack.deployment.contracts).to.deep.equal(first.contracts);
    expect(stack.safe).to.deep.equal(first.safe);
    expect(stack.dust).to.deep.equal(first.dust);
    // The demo app's credentials stay: the same secret, kept in the data directory for the next start to show.
    expect(stack.demoApp).to.deep.equal({ clientId: first.clientId, clientSecret: first.secret });
    // Hardhat's chain is new on every start: the data's records of the old one are cleared with it, and the banner
    // says how many. The Safe's creation is a transaction too.
    expect(stack.chainHistory.restored).to.equal(false);
    expect(stack.chainHistory.newChainReason).to.match(/Hardhat's in-process chain is not saved/);
    expect(stack.chainHistory.cleared).to.include({ safes: 1, transactions: 2 });
    const notice = chainNotice(stack)!;
    expect(notice).to.match(
      /^A new chain, so the old chain's records are cleared from .* \(transactions: 2, safes: 1, /,
    );
    expect(banner(stack, notice)).to.contain(notice);
    const again = await demoAppToken(stack);
    const gone = await fetch(`${stack.apiUrl}/v1/kernel/tx/${String(accepted.body.id)}`, {
      headers: { Authorization: `Bearer ${again}` },
    });
    expect(gone.status, "the old chain's transaction").to.equal(404);
    const safes = await postJson(`${stack.apiUrl}/v1/localhost/accounts`, {}, again);
    expect(JSON.stringify(safes.body), "the old chain's Safe").to.not.contain(String(safe.body.address));
  });

  it("runs the banner's example transaction as printed: the demo user's wallet mints itself a demo token", async () => {
    stack = await startTestStack();
    const printed = banner(stack);
    const body = demoTransaction(stack);
    expect(printed).to.contain(JSON.stringify(body));
    for (const address of Object.values(stack.safe)) expect(printed).to.contain(address);
    for (const address of Object.values(stack.dust)) expect(printed).to.contain(address);
    expect(printed).to.contain(`Database      ${databaseLocation(stack.config)}`);
    const token = await demoAppToken(stack);
    const accepted = await postJson(`${stack.apiUrl}/v1/kernel/tx`, body, token);
    expect(accepted.status).to.equal(202);
    const final = await fetch(`${stack.apiUrl}/v1/kernel/tx/${String(accepted.body.id)}?wait=true`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then((res) => res.json() as Promise<{ status: string; success: boolean; sender: string }>);
    expect(final).to.include({ status: "included", success: true });
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const erc20 = new Contract(stack.demoTokens.erc20, ["function balanceOf(address) view returns (uint256)"], chain);
    expect(await erc20.getFunction("balanceOf")(final.sender)).to.equal(parseEther("1"));
    chain.destroy();
  });
});
