import {
  createIdwalletProvider,
  IdwalletError,
  type IdwalletClient,
  type IdwalletProvider,
  ProviderRpcError,
  type UserLogin,
} from "@idwallet/client";
import { expect } from "chai";
import { JsonRpcProvider, parseEther, Wallet } from "ethers";
import { encodeFunctionData, type Hex, isAddressEqual, numberToHex, type PublicClient } from "viem";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestToken__factory } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { clientPhoneLogin, demoAppClient, fund, stackChain } from "../helpers/packageClient";

/** A refusal as the client (IdwalletError) or the provider (ProviderRpcError, the problem in `data`) throws it. */
interface Refusal extends Error {
  readonly code: unknown;
  readonly status?: number;
  readonly requestId?: string;
  readonly data?: { readonly status?: number; readonly code?: string; readonly problem?: { readonly code: string } };
}

/** What a promise was rejected with (fails the test if it resolved). */
const rejection = async (promise: Promise<unknown>): Promise<Refusal> =>
  promise.then(
    (value) => expect.fail(`expected a refusal, got ${JSON.stringify(value)}`),
    (error: unknown) => error as Refusal,
  );

/** One request the client made to the service, as its fetch saw it. */
interface Sent {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

// The stack sends one bundle at a time, so that the last test can hold one back and have the next carry two users.
describe("@idwallet/client refuses what a user did not allow (e2e: the built package's client and provider on the local stack)", function () {
  this.timeout(240_000);
  let stack: LocalStack;
  let client: IdwalletClient;
  let publicClient: PublicClient;
  let chainId: number;
  const logins: Record<"alice" | "bob" | "carol", UserLogin> = {} as never;
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    sent.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
    return response;
  };
  /** The client's accepted requests for a wallet to act: sending calls, signing. */
  const walletActions = () =>
    sent.filter((r) => r.method === "POST" && /^\/v1\/kernel\/(tx|sign)$/.test(r.path) && r.status < 300).length;
  const providerOf = (user: UserLogin, auth = user.userToken): IdwalletProvider =>
    createIdwalletProvider({ client, userId: user.userId, auth, chain: "localhost" });
  const addressOf = async (provider: IdwalletProvider) =>
    ((await provider.request({ method: "eth_accounts" })) as Hex[])[0]!;
  const mint = (to: string, amount = 1n) => ({
    to: stack.demoTokens.erc20 as Hex,
    data: encodeFunctionData({ abi: TestToken__factory.abi, functionName: "mint", args: [to as Hex, amount] }),
  });
  const tokensOf = (holder: string) =>
    publicClient.readContract({
      address: stack.demoTokens.erc20 as Hex,
      abi: TestToken__factory.abi,
      functionName: "balanceOf",
      args: [holder as Hex],
    });

  before(async () => {
    stack = await startTestStack(undefined, { env: { TX_MAX_BUNDLES_IN_FLIGHT: "1" } });
    client = demoAppClient(stack, recording);
    logins.alice = await clientPhoneLogin(stack, client, "+14155550191");
    logins.bob = await clientPhoneLogin(stack, client, "+14155550192");
    logins.carol = await clientPhoneLogin(stack, client, "+14155550193");
    let chain;
    ({ chain, publicClient } = await stackChain(stack, client));
    chainId = chain.id;
  });
  after(() => stack?.close());

  it("another user's token or a garbage one as proof: IdwalletError with the service's code, 4001/4100 with the problem from the provider", async () => {
    const { alice, bob } = logins;
    const thief = Wallet.createRandom().address;
    const stolen = await rejection(
      client.sendTransaction({ userId: alice.userId, chain: "localhost", auth: bob.userToken, ...mint(thief) }),
    );
    expect(stolen).to.be.instanceOf(IdwalletError);
    expect(stolen).to.include({ status: 403, code: "PROOF_MISMATCH" });
    expect(stolen.requestId).to.be.a("string").and.not.empty;
    const garbage = await rejection(
      client.signMessage({ userId: alice.userId, auth: "not-a-token", chain: "localhost", message: "pay" }),
    );
    expect(garbage).to.be.instanceOf(IdwalletError);
    expect(garbage).to.include({ status: 401, code: "INVALID_PROOF" });

    // The same through the provider: EIP-1193 errors, the service's problem in `data`.
    const withBobsToken = providerOf(alice, bob.userToken);
    const refusals = [
      await rejection(withBobsToken.request({ method: "eth_sendTransaction", params: [mint(thief)] })),
      await rejection(withBobsToken.request({ method: "wallet_sendCalls", params: [{ calls: [mint(thief)] }] })),
    ];
    for (const refused of refusals) {
      expect(refused).to.be.instanceOf(ProviderRpcError);
      expect(refused.code).to.equal(4001);
      expect(refused.data).to.deep.include({ status: 403, code: "PROOF_MISMATCH" });
      expect(refused.data?.problem?.code).to.equal("PROOF_MISMATCH");
    }
    const forged = providerOf(alice, "not-a-token");
    const unsigned = await rejection(forged.request({ method: "personal_sign", params: ["0x68656c6c6f"] }));
    expect(unsigned).to.include({ code: 4100 });
    expect(unsigned.data).to.deep.include({ status: 401, code: "INVALID_PROOF" });

    expect(walletActions(), "no request accepted").to.equal(0);
    expect(await tokensOf(thief)).to.equal(0n);
    expect(await publicClient.getCode({ address: await addressOf(withBobsToken) })).to.equal(undefined);
  });

  it("a request naming another wallet as `from` is refused 4100 before the service is asked", async () => {
    const alice = providerOf(logins.alice);
    const bobsWallet = await addressOf(providerOf(logins.bob));
    const before = sent.length;
    const thief = Wallet.createRandom().address;
    const asBob = [
      { method: "eth_sendTransaction", params: [{ from: bobsWallet, ...mint(thief) }] },
      {
        method: "wallet_sendCalls",
        params: [{ from: bobsWallet, chainId: numberToHex(chainId), calls: [mint(thief)] }],
      },
      { method: "personal_sign", params: ["0x68656c6c6f", bobsWallet] },
      { method: "eth_signTypedData_v4", params: [bobsWallet, "{}"] },
    ];
    for (const request of asBob) {
      const refused = await rejection(alice.request(request));
      expect(refused, request.method).to.include({ code: 4100 });
    }
    expect(
      sent.slice(before).filter((r) => r.path.startsWith("/v1/kernel/")),
      "nothing asked of the service",
    ).to.be.empty;
    expect(await tokensOf(thief)).to.equal(0n);
  });

  it("methods an idwallet does not answer are 4200, and a raw transaction is never relayed to the node", async () => {
    const alice = providerOf(logins.alice);
    const address = await addressOf(alice);
    // A transaction someone signed with a funded key: forwarded, the node would run it.
    const someone = Wallet.createRandom();
    await fund(stack, someone.address, parseEther("1"));
    const recipient = Wallet.createRandom().address;
    const raw = await someone.signTransaction({
      to: recipient,
      value: parseEther("0.5"),
      nonce: 0,
      gasLimit: 21_000,
      gasPrice: parseEther("0.00000001"),
      chainId,
    });
    const unsupported = [
      { method: "eth_sign", params: [address, `0x${"11".repeat(32)}`] },
      { method: "eth_signTransaction", params: [{ from: address, to: recipient, value: "0x1" }] },
      { method: "eth_sendRawTransaction", params: [raw] },
      { method: "hardhat_impersonateAccount", params: [address] },
      { method: "eth_unknownMethod", params: [] },
    ];
    for (const request of unsupported) {
      const refused = await rejection(alice.request(request));
      expect(refused, request.method).to.include({ code: 4200 });
    }
    expect(await publicClient.getTransactionCount({ address: someone.address as Hex })).to.equal(0);
    expect(await publicClient.getBalance({ address: recipient as Hex })).to.equal(0n);
  });

  it("wallet_getCallsStatus of another user's batch, or of no batch, answers 5730 and tells nothing of it", async () => {
    const bob = providerOf(logins.bob);
    const { id } = (await bob.request({
      method: "wallet_sendCalls",
      params: [{ calls: [mint(Wallet.createRandom().address)] }],
    })) as {
      id: string;
    };
    const included = await client.waitForTransaction(id, { timeoutMs: 60_000 });
    expect(included).to.include({ status: "included", success: true });
    expect(await bob.request({ method: "wallet_getCallsStatus", params: [id] })).to.include({ status: 200 });

    const alice = providerOf(logins.alice);
    for (const asked of [id, "7d1e5f4c-0000-4000-8000-000000000000", "not-an-id", ".."]) {
      const refused = await rejection(alice.request({ method: "wallet_getCallsStatus", params: [asked] }));
      expect(refused, asked).to.include({ code: 5730 });
      const told = JSON.stringify({ message: refused.message, data: refused.data });
      expect(told).to.not.include(included.transactionHash!).and.not.include(included.sender.toLowerCase());
    }
  });

  it("wallet_sendCalls for another chain is 5710, with a capability it cannot honour 5700; an optional one is ignored", async () => {
    const alice = providerOf(logins.alice);
    const before = sent.length;
    const recipient = Wallet.createRandom().address;
    const batch = (extra: object) => ({ method: "wallet_sendCalls", params: [{ calls: [mint(recipient)], ...extra }] });
    const otherChain = await rejection(alice.request(batch({ chainId: "0x1" })));
    expect(otherChain).to.include({ code: 5710 });
    const paymaster = { paymasterService: { url: "https://paymaster.example" } };
    const required = await rejection(alice.request(batch({ chainId: numberToHex(chainId), capabilities: paymaster })));
    expect(required).to.include({ code: 5700 });
    const perCall = await rejection(
      alice.request({
        method: "wallet_sendCalls",
        params: [{ calls: [{ ...mint(recipient), capabilities: paymaster }] }],
      }),
    );
    expect(perCall).to.include({ code: 5700 });
    expect(
      sent.slice(before).filter((r) => r.path === "/v1/kernel/tx"),
      "nothing sent",
    ).to.be.empty;

    const optional = { paymasterService: { url: "https://paymaster.example", optional: true } };
    const { id } = (await alice.request(batch({ chainId: numberToHex(chainId), capabilities: optional }))) as {
      id: string;
    };
    expect(await client.waitForTransaction(id, { timeoutMs: 60_000 })).to.include({ success: true });
    expect(await tokensOf(recipient)).to.equal(1n);
  });

  it("a bundle carrying two users' batches: each one's wallet_getCallsStatus shows its own calls' logs only", async () => {
    const node = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const statusOf = async (id: string) => (await client.getTransaction(id)).status;
    const until = async (check: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const send = async (login: UserLogin, to: string) =>
      (
        (await providerOf(login).request({ method: "wallet_sendCalls", params: [{ calls: [mint(to, 5n)] }] })) as {
          id: string;
        }
      ).id;
    const [toAlice, toBob] = [Wallet.createRandom().address, Wallet.createRandom().address];
    await node.send("evm_setAutomine", [false]);
    try {
      // Carol's bundle is sent and held unmined: the stack sends one at a time, so Alice's and Bob's wait together.
      const carols = await send(logins.carol, Wallet.createRandom().address);
      await until(async () => (await statusOf(carols)) === "submitted", "Carol's bundle sent");
      const [alices, bobs] = await Promise.all([send(logins.alice, toAlice), send(logins.bob, toBob)]);
      await node.send("evm_mine", []);
      await until(
        async () => (await statusOf(alices)) === "submitted" && (await statusOf(bobs)) === "submitted",
        "the next bundle",
      );
      await node.send("evm_mine", []);
      const [alice, bob] = await Promise.all(
        [alices, bobs].map(async (id) => {
          await client.waitForTransaction(id, { timeoutMs: 60_000 });
          return (await providerOf(id === alices ? logins.alice : logins.bob).request({
            method: "wallet_getCallsStatus",
            params: [id],
          })) as { status: number; receipts: { transactionHash: Hex; logs: { address: Hex; topics: Hex[] }[] }[] };
        }),
      );
      expect(alice!.receipts[0]!.transactionHash, "one bundle for both").to.equal(bob!.receipts[0]!.transactionHash);
      const mintedTo = (status: typeof alice) =>
        status!.receipts[0]!.logs.filter((log) => isAddressEqual(log.address, stack.demoTokens.erc20 as Hex)).map(
          (log) => `0x${log.topics[2]!.slice(26)}`,
        );
      expect(mintedTo(alice).map((to) => isAddressEqual(to as Hex, toAlice as Hex))).to.deep.equal([true]);
      expect(mintedTo(bob).map((to) => isAddressEqual(to as Hex, toBob as Hex))).to.deep.equal([true]);
    } finally {
      await node.send("evm_setAutomine", [true]);
      node.destroy();
    }
  });
});
