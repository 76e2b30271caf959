import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { JsonRpcProvider, Wallet } from "ethers";
import { chainStateFiles } from "../../scripts/localStack/chainState";
import { demoTransaction } from "../../scripts/localStack/banner";
import { type LocalStack, startLocalStack } from "../../scripts/localStack/startLocalStack";
import { readableLogLine } from "../../scripts/localStack/readableLog";
import { startArguments } from "../../scripts/start";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken } from "../helpers/stackClients";

type Json = Record<string, unknown>;

/** The Safe's salt nonce: given, so the same signers give the same address on every chain. */
const SALT_NONCE = "35";

/** The app's Safes on the local chain (POST /v1/localhost/accounts), as JSON text. */
async function listedSafes(stack: LocalStack, token: string): Promise<string> {
  return JSON.stringify((await postJson(`${stack.apiUrl}/v1/localhost/accounts`, {}, token)).body);
}

/** GET `route` of the stack as the holder of `token`: status and body. */
async function get(stack: LocalStack, route: string, token: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${stack.apiUrl}${route}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Polls the Safe request until it is final (10 s at most). */
async function safeFinal(stack: LocalStack, token: string, safe: string, txUuid: string): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const { body } = await get(stack, `/v1/localhost/account/${safe}/tx/${txUuid}`, token);
    if (body.status === "included" || body.status === "failed") return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Safe request ${txUuid} not final`);
}

/** What the first run left: one Safe, one wallet with its transaction, the credentials and an app token. */
interface FirstRun {
  safe: string;
  signer: string;
  wallet: string;
  txId: string;
  txHash: string;
  token: string;
  credentials: { clientId: string; clientSecret: string };
  ensRegistry: string;
}

describe("Local stack across restarts (e2e: the chain and the data directory stay one)", function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-restart-"));
  const files = chainStateFiles(dataDir);
  let stack: LocalStack | undefined;
  let first: FirstRun;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("restarted on anvil with the same data directory: the Safe, wallet and transaction of the first run are on its chain, and the demo app's client id and secret still work", async () => {
    stack = await startTestStack(dataDir, { chainNode: "anvil" });
    expect(stack.chainHistory.restored).to.equal(false);
    const token = await demoAppToken(stack);
    const signer = Wallet.createRandom().address;
    const created = await postJson(
      `${stack.apiUrl}/v1/localhost/account`,
      { signers: [signer], saltNonce: SALT_NONCE },
      token,
    );
    expect(created.status).to.equal(202);
    const safe = String(created.body.address);
    expect(await safeFinal(stack, token, safe, String(created.body.txUuid))).to.include({ status: "included" });
    const accepted = await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token);
    expect(accepted.status).to.equal(202);
    const done = await get(stack, `/v1/kernel/tx/${String(accepted.body.id)}?wait=true`, token);
    expect(done.body).to.include({ status: "included", success: true });
    // The credentials are in the file the README names, owner-only.
    const credentials = JSON.parse(readFileSync(stack.demoAppFile, "utf8")) as FirstRun["credentials"];
    expect(stack.demoAppFile).to.equal(path.join(dataDir, "demo-app.json"));
    expect(credentials).to.deep.equal(stack.demoApp);
    expect(statSync(stack.demoAppFile).mode & 0o777).to.equal(0o600);
    first = {
      safe,
      signer,
      wallet: String(done.body.sender),
      txId: String(accepted.body.id),
      txHash: String(done.body.transactionHash),
      token,
      credentials,
      ensRegistry: stack.ens.registry,
    };
    await stack.close();
    stack = undefined;
    expect(existsSync(files.state), "the chain saved beside the data").to.equal(true);
    expect(statSync(files.state).mode & 0o777).to.equal(0o600);

    stack = await startTestStack(dataDir, { chainNode: "anvil" });
    expect(stack.chainHistory).to.deep.equal({ restored: true });
    expect(stack.demoApp).to.deep.equal(first.credentials);
    expect(stack.ens.registry).to.equal(first.ensRegistry);
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    try {
      expect(await chain.getCode(first.safe), "the Safe's code").to.not.equal("0x");
      expect(await chain.getCode(first.wallet), "the wallet's code").to.not.equal("0x");
      expect((await chain.getTransactionReceipt(first.txHash))?.status).to.equal(1);
    } finally {
      chain.destroy();
    }
    // A token fetched with the same client id and secret works, and so does the one the first run issued.
    const again = await demoAppToken(stack);
    expect(await listedSafes(stack, again)).to.contain(first.safe);
    const tx = await get(stack, `/v1/kernel/tx/${first.txId}`, first.token);
    expect(tx.body).to.include({ status: "included", transactionHash: first.txHash });
    // The Safe exists on this chain: asking for it again is the 409 it should be.
    const twice = await postJson(
      `${stack.apiUrl}/v1/localhost/account`,
      { signers: [first.signer], saltNonce: SALT_NONCE },
      again,
    );
    expect(twice.status).to.equal(409);
  });

  it("a data directory whose saved chain is gone meets a new chain with its old records cleared, and says so", async () => {
    rmSync(files.state);
    stack = await startTestStack(dataDir, { chainNode: "anvil" });
    expect(stack.chainHistory.restored).to.equal(false);
    expect(stack.chainHistory.newChainReason).to.match(/chain-state\.json, is missing/);
    expect(stack.chainHistory.cleared).to.include({ safes: 1, transactions: 2 });
    expect(stack.demoApp).to.deep.equal(first.credentials);
    const token = await demoAppToken(stack);
    expect((await get(stack, `/v1/kernel/tx/${first.txId}`, token)).status).to.equal(404);
    expect(await listedSafes(stack, token)).to.not.contain(first.safe);
    // No SAFE_EXISTS for a Safe this chain never had: it is made again (recorded now, in this run's data).
    const made = await postJson(
      `${stack.apiUrl}/v1/localhost/account`,
      { signers: [first.signer], saltNonce: SALT_NONCE },
      token,
    );
    expect(made.status).to.equal(202);
    expect(made.body.address).to.equal(first.safe);
    await safeFinal(stack, token, first.safe, String(made.body.txUuid));
  });

  it("npm start -- --fresh starts a new chain beside a saved one and clears the data's records of it; the credentials stay", async () => {
    expect(existsSync(files.state)).to.equal(true);
    stack = await startTestStack(dataDir, { chainNode: "anvil", fresh: true });
    expect(stack.chainHistory.restored).to.equal(false);
    expect(stack.chainHistory.newChainReason).to.match(/--fresh/);
    expect(stack.chainHistory.cleared).to.include({ safes: 1 });
    expect(stack.demoApp).to.deep.equal(first.credentials);
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    expect(await chain.getCode(first.safe)).to.equal("0x");
    chain.destroy();
    expect(startArguments(["--fresh"]).env).to.deep.equal({ FRESH: "1" });
    expect(() => startArguments(["--frsh"])).to.throw(/unknown argument "--frsh"/);
    // A request of this run, for the next test's run to find recorded against an unsaved chain.
    const token = await demoAppToken(stack);
    expect((await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token)).status).to.equal(202);
  });

  it("a run that ended without saving its chain (killed) is not restored: its records are cleared with it", async () => {
    // What a killed run leaves: the record marked unsaved at its start, and the state an earlier stop saved.
    const record = JSON.parse(readFileSync(files.record, "utf8")) as Json;
    writeFileSync(files.record, JSON.stringify({ ...record, saved: false }));
    stack = await startTestStack(dataDir, { chainNode: "anvil" });
    expect(stack.chainHistory.restored).to.equal(false);
    expect(stack.chainHistory.newChainReason).to.match(/did not stop cleanly/);
    expect(stack.chainHistory.cleared).to.include({ transactions: 1 });
  });

  it("a port already taken fails at once, before anything is deployed, naming the setting to change", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as { port: number }).port;
    const failure = async (ports: { apiPort: number; rpcPort: number }): Promise<string> => {
      const started = Date.now();
      try {
        await startLocalStack({
          host: "127.0.0.1",
          dataDir: mkdtempSync(path.join(tmpdir(), "idwallet-port-")),
          ...ports,
        });
      } catch (error) {
        expect(Date.now() - started, "failed at once").to.be.below(2_000);
        return (error as Error).message;
      }
      throw new Error("the stack started on a taken port");
    };
    try {
      expect(await failure({ apiPort: taken, rpcPort: 0 })).to.match(
        new RegExp(`port ${taken} on 127\\.0\\.0\\.1, for the API, is already in use.*set PORT to a free port`),
      );
      expect(await failure({ apiPort: 0, rpcPort: taken })).to.match(/for the chain's RPC.*set DEV_RPC_PORT/);
      expect(await failure({ apiPort: taken, rpcPort: taken })).to.match(/PORT and DEV_RPC_PORT are both/);
    } finally {
      blocker.close();
    }
  });

  it("logs readable lines in the local stack: time, level, message, fields, an error's stack below", () => {
    const line = JSON.stringify({
      level: 40,
      time: 0,
      pid: 1,
      hostname: "h",
      msg: "bundle dropped",
      chain: "localhost",
      n: 2,
    });
    expect(readableLogLine(line)).to.match(/^\d\d:\d\d:\d\d WARN  bundle dropped {2}chain=localhost n=2$/);
    const failed = JSON.stringify({ level: 50, msg: "boom", err: { message: "x", stack: "Error: x\n    at y" } });
    expect(readableLogLine(failed).split("\n").slice(1)).to.deep.equal(["    Error: x", "        at y"]);
    expect(readableLogLine("not json")).to.equal("not json");
    const served = { level: 30, msg: "request completed", reqId: "r1", responseTime: 5.2 };
    const request = { ...served, req: { id: "r1", method: "GET", path: "/health" }, res: { statusCode: 200 } };
    expect(readableLogLine(JSON.stringify(request))).to.match(/INFO {2}GET \/health → 200 in 5\.2 ms {2}reqId=r1$/);
  });
});
