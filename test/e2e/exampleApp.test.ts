import { expect } from "chai";
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import path from "node:path";
import readline from "node:readline";
import { JsonRpcProvider, Wallet, id } from "ethers";
import { createPublicClient, http } from "viem";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestToken__factory } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { lastSmsCode } from "../helpers/stackClients";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "phone-wallet", "server.js");
const PHONE = "+14155552671";
const START_TIMEOUT_MS = 30_000;
/** ERC-6492's magic suffix: a signature for a wallet not deployed yet. */
const ERC6492_SUFFIX = /6492649264926492649264926492649264926492649264926492649264926492$/;

/** The example run as its README says (`node server.js` with the settings in its environment); its URL once listening. */
async function startExample(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [EXAMPLE], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.once("exit", () => child.kill("SIGKILL"));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the example did not start listening")), START_TIMEOUT_MS);
    child.once("exit", (code) => reject(new Error(`the example exited with ${code} before listening`)));
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const listening = /listening on (http:\/\/\S+)/.exec(line);
      if (!listening) return;
      clearTimeout(timer);
      resolve(listening[1]!);
    });
  });
  return { child, url };
}

describe("the phone-wallet example (e2e: examples/phone-wallet run as a process, driven over HTTP)", () => {
  let stack: LocalStack;
  let example: { child: ChildProcess; url: string };
  let chain: JsonRpcProvider;
  let session: { sessionId: string; userId: string; address: string };

  /** POSTs JSON to the example (as the logged-in user once there is a session) and returns status and answer. */
  const post = async (route: string, body: unknown, sessionId = session?.sessionId) => {
    const res = await fetch(`${example.url}${route}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(sessionId ? { Authorization: `Bearer ${sessionId}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** POSTs `body` as the session in two writes, split at byte `at`: two packets, as a slow network delivers them. */
  const postInTwo = (route: string, body: Buffer, at: number) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(`${example.url}${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${session.sessionId}` },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.flushHeaders();
      req.write(body.subarray(0, at));
      setTimeout(() => req.end(body.subarray(at)), 100);
    });
  const verifyOnChain = (address: string, message: string, signature: string) =>
    createPublicClient({ transport: http(stack.rpcUrl) }).verifyMessage({
      address: address as `0x${string}`,
      message,
      signature: signature as `0x${string}`,
    });

  before(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    example = await startExample({
      IDWALLET_URL: stack.apiUrl,
      IDWALLET_CLIENT_ID: stack.demoApp.clientId,
      IDWALLET_CLIENT_SECRET: stack.demoApp.clientSecret,
      RPC_URL: stack.rpcUrl,
      PORT: "0",
    });
  });
  after(async () => {
    example?.child.kill();
    chain?.destroy();
    await stack?.close();
  });

  it("refuses the wallet's routes without a session, and passes on the service's refusal of a wrong code", async () => {
    expect((await post("/batch", {}, "")).status).to.equal(401);
    expect((await post("/sign", { message: "hi" }, "not-a-session")).status).to.equal(401);
    const other = "+14155550188";
    expect((await post("/login/start", { phone: other })).status).to.equal(200);
    const wrong = lastSmsCode(stack) === "000000" ? "111111" : "000000";
    const refused = await post("/login/verify", { phone: other, code: wrong });
    expect(refused.status).to.equal(401);
    expect(refused.body).to.include({ code: "INVALID_OTP" });
    expect(refused.body.requestId).to.be.a("string");
  });

  it("logs a phone user in with the texted code and answers the user's wallet", async () => {
    const started = await post("/login/start", { phone: PHONE });
    expect(started).to.deep.equal({ status: 200, body: { sent: true } });
    const verified = await post("/login/verify", { phone: PHONE, code: lastSmsCode(stack) });
    expect(verified.status).to.equal(200);
    session = verified.body as typeof session;
    expect(session.userId).to.equal("tel:14155552671");
    expect(session.address).to.equal(
      deriveWalletAddress(stack.deployment.contracts.kernelFactory, "kernel", parseUserId(session.userId)),
    );
    expect(session.sessionId).to.be.a("string");
  });

  it("signs a message before the wallet exists (ERC-6492), which the chain accepts for that message only", async () => {
    const message = "Sign in to the example app, nonce 1";
    const { status, body } = await post("/sign", { message });
    expect(status).to.equal(200);
    expect(body.valid).to.equal(true);
    expect(body.signature as string).to.match(ERC6492_SUFFIX);
    expect(await verifyOnChain(session.address, message, body.signature as string)).to.equal(true);
    expect(await verifyOnChain(session.address, "another message", body.signature as string)).to.equal(false);
  });

  it("a message whose character arrives split across two packets is signed as sent, not as two U+FFFD", async () => {
    const message = "Pay the café ☕ 3 coffees, nonce 3";
    const body = Buffer.from(JSON.stringify({ message }));
    const { status, body: answer } = await postInTwo("/sign", body, body.indexOf(Buffer.from("☕")) + 1);
    expect(status).to.equal(200);
    expect(answer.valid).to.equal(true);
    expect(await verifyOnChain(session.address, message, answer.signature as string)).to.equal(true);
  });

  it("sends a gasless batch of two calls, included on chain: the mint, then the transfer it paid for", async () => {
    const token = TestToken__factory.connect(stack.demoTokens.erc20, chain);
    const recipient = Wallet.createRandom().address;
    const { status, body } = await post("/batch", { token: stack.demoTokens.erc20, to: recipient, amount: "1000" });
    expect(status).to.equal(200);
    expect(body).to.include({ status: "included", success: true, userId: session.userId });
    expect(await token.balanceOf(recipient)).to.equal(1000n);
    expect(await token.balanceOf(session.address)).to.equal(0n);
    const receipt = (await chain.getTransactionReceipt(body.transactionHash as string))!;
    expect(receipt.status).to.equal(1);
    const transfers = receipt.logs
      .filter((log) => log.address === stack.demoTokens.erc20)
      .map((log) => token.interface.parseLog(log)!)
      .map((event) => [event.name, event.args[0], event.args[1], event.args[2]]);
    const zero = "0x0000000000000000000000000000000000000000";
    expect(transfers).to.deep.equal([
      ["Transfer", zero, session.address, 1000n],
      ["Transfer", session.address, recipient, 1000n],
    ]);
    expect(await chain.getCode(session.address)).to.not.equal("0x");
  });

  it("signs a message once the wallet is deployed (plain EIP-1271), valid on chain", async () => {
    const message = `Sign in to the example app, nonce ${id("2").slice(2, 10)}`;
    const { status, body } = await post("/sign", { message });
    expect(status).to.equal(200);
    expect(body.valid).to.equal(true);
    expect(body.signature as string).to.not.match(ERC6492_SUFFIX);
    expect(await verifyOnChain(session.address, message, body.signature as string)).to.equal(true);
  });
});
