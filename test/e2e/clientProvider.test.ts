import {
  createIdwalletProvider,
  type IdwalletClient,
  type IdwalletProvider,
  type RequestArguments,
  toIdwalletAccount,
  type UserLogin,
} from "@idwallet/client";
import { expect } from "chai";
import { BrowserProvider, type JsonRpcSigner, parseEther, type TransactionResponse, Wallet } from "ethers";
import { type Chain, createWalletClient, custom, getAddress, type Hex, isAddressEqual, type PublicClient } from "viem";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestNFT__factory, TestToken__factory } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { WALLET_CAPABILITIES, clientPhoneLogin, demoAppClient, fund, stackChain } from "../helpers/packageClient";

/** ERC-6492's magic suffix: the signature of a wallet not yet deployed, wrapped with its factory call. */
const ERC6492_SUFFIX = /6492649264926492649264926492649264926492649264926492649264926492$/;

/** EIP-712 typed data an app might ask a user to sign: a mail with an amount, as in the EIP's own example. */
const mail = (chainId: number, verifyingContract: string) => ({
  domain: { name: "Ether Mail", version: "1", chainId, verifyingContract: verifyingContract as Hex },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
      { name: "amount", type: "uint256" },
    ],
  },
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" as Hex },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" as Hex },
    contents: "Hello, Bob!",
    amount: 1_000_000_000_000_000_000n,
  },
});

describe("@idwallet/client hands a phone user's idwallet to ethers and viem (e2e: the built package on the local stack)", function () {
  this.timeout(240_000);
  let stack: LocalStack;
  let client: IdwalletClient;
  let login: UserLogin;
  let provider: IdwalletProvider;
  let signer: JsonRpcSigner;
  let chain: Chain;
  let publicClient: PublicClient;
  const asked: string[] = [];
  /** The methods ethers asked for while `action` ran. */
  const askedDuring = async (action: () => Promise<unknown>) => {
    const from = asked.length;
    await action();
    return asked.slice(from);
  };

  before(async () => {
    stack = await startTestStack();
    client = demoAppClient(stack);
    login = await clientPhoneLogin(stack, client, "+14155550180");
    provider = createIdwalletProvider({ client, userId: login.userId, auth: login.userToken, chain: "localhost" });
    // What ethers asks of the provider, in order: the test checks it estimates before it sends.
    const watched = { request: (args: RequestArguments) => (asked.push(args.method), provider.request(args)) };
    signer = await new BrowserProvider(watched).getSigner();
    ({ chain, publicClient } = await stackChain(stack, client));
  });
  after(() => stack?.close());

  /** Signs a message and typed data through ethers' signer; viem verifies them, and refuses them for other content. */
  const signAndVerify = async (text: string) => {
    const address = signer.address as Hex;
    const typed = mail(chain.id, stack.demoTokens.erc20);
    const messageSignature = (await signer.signMessage(text)) as Hex;
    const typedSignature = (await signer.signTypedData(typed.domain, typed.types, typed.message)) as Hex;
    const typedFor = (message: typeof typed.message) => ({ ...typed, primaryType: "Mail" as const, message, address });
    expect(await publicClient.verifyMessage({ address, message: text, signature: messageSignature })).to.equal(true);
    expect(await publicClient.verifyTypedData({ ...typedFor(typed.message), signature: typedSignature })).to.equal(
      true,
    );
    // The same signatures do not pass for another message, other typed data, or another wallet.
    expect(await publicClient.verifyMessage({ address, message: `${text}!`, signature: messageSignature })).to.equal(
      false,
    );
    const otherMail = typedFor({ ...typed.message, amount: typed.message.amount + 1n });
    expect(await publicClient.verifyTypedData({ ...otherMail, signature: typedSignature })).to.equal(false);
    const stranger = Wallet.createRandom().address as Hex;
    expect(
      await publicClient.verifyMessage({ address: stranger, message: text, signature: messageSignature }),
    ).to.equal(false);
    return { messageSignature, typedSignature };
  };

  it("ethers' signer signs a message and typed data before the wallet is deployed (ERC-6492) that viem verifies", async () => {
    expect(await publicClient.getCode({ address: signer.address as Hex })).to.equal(undefined);
    const { messageSignature, typedSignature } = await signAndVerify("log me in to the shop, nonce 1");
    expect(messageSignature).to.match(ERC6492_SUFFIX);
    expect(typedSignature).to.match(ERC6492_SUFFIX);
  });

  it("ethers' signer sends value from the undeployed wallet (estimateGas first), and a contract call once deployed", async () => {
    const address = signer.address;
    await fund(stack, address, parseEther("1"));
    const recipient = Wallet.createRandom().address;
    // ethers estimates gas (eth_estimateGas from the wallet, not yet deployed), then eth_sendTransaction.
    let sent: TransactionResponse | undefined;
    const methods = await askedDuring(async () => {
      sent = await signer.sendTransaction({ to: recipient, value: parseEther("0.25") });
    });
    expect(methods.filter((method) => /^eth_(estimateGas|sendTransaction)$/.test(method))).to.deep.equal([
      "eth_estimateGas",
      "eth_sendTransaction",
    ]);
    const receipt = await sent!.wait();
    expect(receipt?.status).to.equal(1);
    expect(await publicClient.getBalance({ address: recipient as Hex })).to.equal(parseEther("0.25"));
    expect(await publicClient.getCode({ address: address as Hex })).to.not.equal(undefined);

    // Once deployed, an ethers Contract on the signer: estimateGas from a contract account, then the call.
    const token = TestToken__factory.connect(stack.demoTokens.erc20, signer);
    const minted = await (await token.mint(recipient, 500n)).wait();
    expect(minted?.status).to.equal(1);
    expect(await token.balanceOf(recipient)).to.equal(500n);
    // The bundle transaction ethers waited on is the one the chain included.
    const onChain = await publicClient.getTransactionReceipt({ hash: minted!.hash as Hex });
    expect(onChain.blockNumber).to.equal(BigInt(minted!.blockNumber));

    // A call that would revert (more tokens than the wallet holds) fails at the estimate: nothing is sent.
    const overdrawn = await askedDuring(async () => {
      const refused = await token.transfer(recipient, 1n).then(
        () => expect.fail("sent a transfer the wallet cannot make"),
        (error: unknown) => error as { code: string; data: string },
      );
      // The node's revert data reaches the app, which decodes it with the contract's interface.
      expect(refused).to.include({ code: "CALL_EXCEPTION" });
      expect(token.interface.parseError(refused.data)?.name).to.equal("ERC20InsufficientBalance");
    });
    expect(overdrawn).to.include("eth_estimateGas").and.not.include("eth_sendTransaction");
  });

  it("once deployed, the signatures are plain EIP-1271 that viem verifies, still only for what was signed", async () => {
    expect(await publicClient.getCode({ address: signer.address as Hex }), "deployed by the test above").to.not.equal(
      undefined,
    );
    const { messageSignature, typedSignature } = await signAndVerify("log me in to the shop, nonce 2");
    expect(messageSignature).to.not.match(ERC6492_SUFFIX);
    expect(typedSignature).to.not.match(ERC6492_SUFFIX);
  });

  it("a viem WalletClient over the provider sends two calls with wallet_sendCalls: one UserOperation, both effects on chain", async () => {
    const wallet = createWalletClient({ account: signer.address as Hex, chain, transport: custom(provider) });
    const capabilities = await wallet.getCapabilities({ chainId: chain.id });
    expect(capabilities).to.deep.equal(WALLET_CAPABILITIES);
    // The WalletClient's own signing (personal_sign, eth_signTypedData_v4 as viem serializes them) verifies too.
    const message = "viem asks through the provider";
    const signature = await wallet.signMessage({ message });
    expect(await publicClient.verifyMessage({ address: wallet.account.address, message, signature })).to.equal(true);
    const typed = { ...mail(chain.id, stack.demoTokens.erc20), primaryType: "Mail" as const };
    const typedSignature = await wallet.signTypedData(typed);
    expect(
      await publicClient.verifyTypedData({ ...typed, address: wallet.account.address, signature: typedSignature }),
    ).to.equal(true);

    const [holder, collector] = [Wallet.createRandom().address as Hex, Wallet.createRandom().address as Hex];
    const { id } = await wallet.sendCalls({
      calls: [
        { to: stack.demoTokens.erc20 as Hex, abi: TestToken__factory.abi, functionName: "mint", args: [holder, 7n] },
        { to: stack.demoTokens.erc721 as Hex, abi: TestNFT__factory.abi, functionName: "mint", args: [collector, 42n] },
      ],
    });
    const status = await wallet.waitForCallsStatus({ id, pollingInterval: 200, timeout: 60_000 });
    expect(status).to.include({ status: "success", statusCode: 200, atomic: true });
    expect(status.receipts).to.have.length(1);
    const hash = status.receipts![0]!.transactionHash;
    const included = await publicClient.getTransactionReceipt({ hash });
    expect(included.status).to.equal("success");
    expect(status.receipts![0]!.blockNumber).to.equal(included.blockNumber);
    // Its logs are this batch's own: both mints, none of the EntryPoint's bookkeeping around the operation.
    const logs = status.receipts![0]!.logs;
    const mintedTo = (token: string) =>
      logs
        .filter((log) => isAddressEqual(log.address, token as Hex))
        .map((log) => getAddress(`0x${log.topics[2]!.slice(26)}`));
    expect(mintedTo(stack.demoTokens.erc20)).to.deep.equal([holder]);
    expect(mintedTo(stack.demoTokens.erc721)).to.deep.equal([collector]);
    expect(logs.some((log) => isAddressEqual(log.address, stack.deployment.contracts.entryPoint as Hex))).to.equal(
      false,
    );
    // Both calls' effects: the token minted to one, the NFT to the other.
    expect(
      await publicClient.readContract({
        address: stack.demoTokens.erc20 as Hex,
        abi: TestToken__factory.abi,
        functionName: "balanceOf",
        args: [holder],
      }),
    ).to.equal(7n);
    expect(
      await publicClient.readContract({
        address: stack.demoTokens.erc721 as Hex,
        abi: TestNFT__factory.abi,
        functionName: "ownerOf",
        args: [42n],
      }),
    ).to.equal(collector);
    // getCallsStatus asked again: the same answer (a provider that forgot its batches would fail here).
    expect((await wallet.getCallsStatus({ id })).receipts![0]!.transactionHash).to.equal(hash);
  });

  it("toIdwalletAccount is a viem Account: its signatures verify with viem, and a WalletClient signs with it", async () => {
    const account = await toIdwalletAccount({
      client,
      userId: login.userId,
      auth: login.userToken,
      chain: "localhost",
    });
    expect(account.address).to.equal(signer.address);
    const message = "order 77: 3 coffees";
    const signature = await account.signMessage({ message });
    expect(await publicClient.verifyMessage({ address: account.address, message, signature })).to.equal(true);
    expect(await publicClient.verifyMessage({ address: account.address, message: "order 78", signature })).to.equal(
      false,
    );
    const typed = { ...mail(chain.id, stack.demoTokens.erc20), primaryType: "Mail" as const };
    const typedSignature = await account.signTypedData(typed);
    expect(
      await publicClient.verifyTypedData({ ...typed, address: account.address, signature: typedSignature }),
    ).to.equal(true);
    const wallet = createWalletClient({ account, chain, transport: custom(provider) });
    const viaWallet = await wallet.signMessage({ message });
    expect(await publicClient.verifyMessage({ address: account.address, message, signature: viaWallet })).to.equal(
      true,
    );
  });
});
