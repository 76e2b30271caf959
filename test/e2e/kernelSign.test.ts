import { expect } from "chai";
import { JsonRpcProvider, id, parseEther } from "ethers";
import { createPublicClient, http } from "viem";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { KernelAccountFactory__factory, KernelAccount__factory } from "../../typechain-types";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { startSecondChain } from "../helpers/secondChain";
import { demoAppToken, phoneLogin } from "../helpers/stackClients";

const PHONE = "+14155552671";

describe("POST /v1/kernel/sign (e2e: OTP login, EIP-1271 and ERC-6492 checked on the local chain)", () => {
  let stack: LocalStack;
  let appToken: string;
  let userToken: string;
  const post = (route: string, body: unknown, bearer?: string) => postJson(`${stack.apiUrl}${route}`, body, bearer);

  before(async () => {
    stack = await startTestStack();
    appToken = await demoAppToken(stack);
    userToken = await phoneLogin(stack, PHONE);
  });
  after(() => stack.close());

  it("signs for an undeployed wallet with ERC-6492, which viem's verifyHash accepts only for that hash", async () => {
    const hash = id("pay 5 USDC to bob") as `0x${string}`;
    const res = await post("/v1/kernel/sign", { userId: `tel:${PHONE}`, hash, auth: userToken }, appToken);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ userId: "tel:14155552671", deployed: null });
    expect(res.body.signature as string).to.match(/6492649264926492649264926492649264926492649264926492649264926492$/);
    const client = createPublicClient({ transport: http(stack.rpcUrl) });
    const address = res.body.accountAddress as `0x${string}`;
    const signature = res.body.signature as `0x${string}`;
    expect(await client.verifyHash({ address, hash, signature })).to.equal(true);
    expect(await client.verifyHash({ address, hash: id("something else") as `0x${string}`, signature })).to.equal(
      false,
    );
  });

  it("gives the plain EIP-1271 signature for a chain where the wallet is deployed, and isValidSignature agrees", async () => {
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const factory = KernelAccountFactory__factory.connect(
      stack.deployment.contracts.kernelFactory,
      await chain.getSigner(0),
    );
    await (await factory.createAccount(walletSalt("kernel", parseUserId(`tel:${PHONE}`)))).wait();
    const hash = id("deployed now");
    const res = await post(
      "/v1/kernel/sign",
      { userId: `tel:${PHONE}`, hash, auth: userToken, chain: "localhost" },
      appToken,
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ deployed: true, chain: "localhost" });
    expect(res.body.signature).to.equal(res.body.erc1271Signature);
    const wallet = KernelAccount__factory.connect(res.body.accountAddress as string, chain);
    expect(await wallet.isValidSignature(hash, res.body.signature as string)).to.equal("0x1626ba7e");
    expect(await wallet.isValidSignature(id("other"), res.body.signature as string)).to.equal("0xffffffff");
    chain.destroy();
  });

  it("a test-mode app gets a mainnet-valid EIP-1271 signature with blank auth: refused", async () => {
    // The demo app is in test mode and owns the provider `demo`: its transactions on the local chain take a blank auth.
    const hash = id("Permit2: let the app's spender take every demo user's tokens");
    const res = await post("/v1/kernel/sign", { userId: "demo:alice", hash, auth: "", chain: "localhost" }, appToken);
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ code: "TEST_MODE_NOT_ALLOWED", instance: "/v1/kernel/sign" });
    expect(res.body.detail).to.match(/never yields a signature/);
    expect(res.body).to.not.have.property("signature");
  });

  it("why blank auth never signs: a signature asked for the local chain verifies on chain id 1 where the wallet exists", async () => {
    // The signature the API gives names no chain id (EIP-1271 replay-safe hash, docs/contracts.md): whatever `chain`
    // the request named, it holds on every chain where the wallet is deployed, mainnet included.
    const hash = id("EIP-2612 permit, asked for the local chain");
    const res = await post(
      "/v1/kernel/sign",
      { userId: `tel:${PHONE}`, hash, auth: userToken, chain: "localhost" },
      appToken,
    );
    expect(res.status).to.equal(200);
    const mainnet = await startSecondChain(1);
    const admin = await mainnet.getSigner(0);
    const deployment = await deployIdwallet(admin, {
      admin: await admin.getAddress(),
      ensDomain: stack.ens.domain,
      walletSigners: [stack.custody.addresses.walletSigner],
      sponsorSigners: [stack.custody.addresses.sponsorSigner],
      ccipSigners: [stack.custody.addresses.ccipSigner],
      paymasterDeposit: parseEther("1"),
    });
    expect(deployment.chainId).to.equal(1);
    expect(deployment.contracts).to.deep.equal(stack.deployment.contracts);
    const factory = KernelAccountFactory__factory.connect(deployment.contracts.kernelFactory, admin);
    await (await factory.createAccount(walletSalt("kernel", parseUserId(`tel:${PHONE}`)))).wait();
    const wallet = KernelAccount__factory.connect(res.body.accountAddress as string, mainnet);
    expect(await wallet.isValidSignature(hash, res.body.erc1271Signature as string)).to.equal("0x1626ba7e");
  });

  it("refuses another user's id, a missing proof, no bearer token, and an unknown chain", async () => {
    const hash = id("x");
    const other = await post("/v1/kernel/sign", { userId: "tel:+14155550199", hash, auth: userToken }, appToken);
    expect([other.status, other.body.code]).to.deep.equal([403, "PROOF_MISMATCH"]);
    const blank = await post("/v1/kernel/sign", { userId: `tel:${PHONE}`, hash }, appToken);
    expect([blank.status, blank.body.code]).to.deep.equal([401, "PROOF_REQUIRED"]);
    const noBearer = await post("/v1/kernel/sign", { userId: `tel:${PHONE}`, hash, auth: userToken });
    expect([noBearer.status, noBearer.body.code]).to.deep.equal([401, "MISSING_TOKEN"]);
    const github = await post("/v1/kernel/sign", { userId: "github:alice", hash, auth: "x" }, appToken);
    expect([github.status, github.body.code]).to.deep.equal([400, "NATIVE_LOGIN_UNAVAILABLE"]);
    const chain = await post(
      "/v1/kernel/sign",
      { userId: `tel:${PHONE}`, hash, auth: userToken, chain: "nochain" },
      appToken,
    );
    expect([chain.status, chain.body.code]).to.deep.equal([400, "UNKNOWN_CHAIN"]);
    const badHash = await post("/v1/kernel/sign", { userId: `tel:${PHONE}`, hash: "0x12", auth: userToken }, appToken);
    expect([badHash.status, badHash.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
  });
});
