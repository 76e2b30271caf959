import { expect } from "chai";
import { JsonRpcProvider, TypedDataEncoder, getBytes, hashMessage as ethersHashMessage } from "ethers";
import { hashTypedData, type Hex } from "viem";
import {
  type IdwalletClient,
  type IdwalletProvider,
  ProviderRpcError,
  RPC_ERROR,
  type UserLogin,
  createIdwalletClient,
  createIdwalletProvider,
  toIdwalletAccount,
} from "@idwallet/client";
import type { ChainClient } from "../../gateway/chains/clients";
import { closeAll, listenOn } from "../helpers/fastPathPair";
import { WALLET_CAPABILITIES } from "../helpers/packageClient";
import { type ServedTestApp, serveTestApp } from "../helpers/servedTestApp";

const PHONE = "+14155552671";
const WALLET_SIGNER_KEY = `0x${"3c".repeat(32)}`;
const TARGET = "0x000000000000000000000000000000000000dEaD";

/**
 * A node where no wallet is deployed (eth_getCode answers 0x): signatures come ERC-6492-wrapped, nothing is sent. It
 * answers JSON-RPC batches too: the service's client batches calls made at once (a reachability check beside a read).
 */
async function emptyNode() {
  const answer = (call: { id: number; method: string }) => {
    const result = call.method === "eth_chainId" ? "0x7a69" : call.method === "eth_getCode" ? "0x" : undefined;
    return { jsonrpc: "2.0", id: call.id, ...(result ? { result } : { error: { code: -32601, message: "not here" } }) };
  };
  const node = await listenOn((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as
        { id: number; method: string } | { id: number; method: string }[];
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
    });
  });
  const chain: ChainClient = {
    name: "localhost",
    chainId: 31337,
    provider: new JsonRpcProvider(`http://127.0.0.1:${node.port}`, 31337, { staticNetwork: true, batchMaxCount: 1 }),
  };
  return { chain, close: () => closeAll([node]) };
}

/** EIP-712 typed data a dapp asks to sign, as ethers' BrowserProvider sends it (EIP712Domain in its types). */
const PERMIT = {
  domain: {
    name: "Token",
    version: "1",
    chainId: 31337,
    verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
  },
  types: {
    Permit: [
      { name: "owner", type: "address" },
      { name: "spender", type: "address" },
      { name: "value", type: "uint256" },
    ],
  },
  primaryType: "Permit",
  message: {
    owner: "0x000000000000000000000000000000000000bEEF",
    spender: "0x000000000000000000000000000000000000dEaD",
    value: "1000",
  },
} as const;

describe("client package: what code holding the provider can make it sign or send (EIP-191, EIP-712, chains, batches)", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let user: UserLogin;
  let provider: IdwalletProvider;
  let address: Hex;
  let node: Awaited<ReturnType<typeof emptyNode>>;
  /** The hashes the client asked the service to sign, in order. */
  const signed: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).pathname === "/v1/kernel/sign")
      signed.push(((await request.clone().json()) as { hash: string }).hash);
    return fetch(request);
  };

  before(async () => {
    node = await emptyNode();
    service = await serveTestApp(
      { walletSignerKey: WALLET_SIGNER_KEY },
      { chains: new Map([["localhost", node.chain]]), txChains: ["localhost"] },
    );
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials, fetch: recording });
    user = await service.loginPhone(idwallet, PHONE);
    provider = createIdwalletProvider({
      client: idwallet,
      userId: user.userId,
      auth: user.userToken,
      chain: "localhost",
    });
    address = ((await provider.request({ method: "eth_accounts" })) as Hex[])[0]!;
  });
  after(async () => {
    await service.close();
    await node.close();
  });
  beforeEach(() => {
    signed.splice(0);
    service.received.splice(0);
  });

  /** The EIP-1193 error `method` is refused with (fails the test if it was answered). */
  const refusal = (method: string, params: unknown[]) =>
    provider.request({ method, params }).then(
      (value) => expect.fail(`answered ${JSON.stringify(value)}`),
      (error: unknown) => error as ProviderRpcError,
    );
  const expectBadParams = async (method: string, params: unknown[]) => {
    const error = await refusal(method, params);
    expect(error).to.be.instanceOf(ProviderRpcError);
    expect(error.code, error.message).to.equal(RPC_ERROR.invalidParams);
    expect(signed, "nothing was signed").to.deep.equal([]);
  };
  const signTyped = (typed: unknown) =>
    provider.request({ method: "eth_signTypedData_v4", params: [address, JSON.stringify(typed)] });
  const typedWithDomainType = (typed: typeof PERMIT | Record<string, unknown> = PERMIT) => {
    const { domain, types, primaryType, message } = typed as typeof PERMIT;
    return TypedDataEncoder.getPayload(domain, { [primaryType]: [...types[primaryType]] }, message) as {
      domain: Record<string, unknown>;
      types: Record<string, { name: string; type: string }[]>;
      message: Record<string, unknown>;
      primaryType: string;
    };
  };

  it("personal_sign of a bare 32-byte hash signs the EIP-191 hash of those bytes, never the hash itself", async () => {
    const hash = `0x${"ab".repeat(32)}`;
    await provider.request({ method: "personal_sign", params: [hash, address] });
    expect(signed).to.deep.equal([ethersHashMessage(getBytes(hash))]);
    expect(signed[0]).to.not.equal(hash);
  });

  it("personal_sign of an odd number of hex digits (hashed without EIP-191's leading 0x19) or of no string is -32602", async () => {
    await expectBadParams("personal_sign", ["0xabc", address]);
    await expectBadParams("personal_sign", [{ raw: "0xabc" }, address]);
    await expectBadParams("personal_sign", [42, address]);
  });

  it("typed data as ethers sends it (EIP712Domain in its types) is signed by the hash ethers and viem make", async () => {
    const payload = typedWithDomainType();
    await signTyped(payload);
    const ethersHash = TypedDataEncoder.hash(PERMIT.domain, { Permit: [...PERMIT.types.Permit] }, PERMIT.message);
    expect(signed).to.deep.equal([ethersHash]);
    expect(hashTypedData({ ...PERMIT, message: { ...PERMIT.message, value: 1000n } })).to.equal(ethersHash);
  });

  it("a domain field EIP712Domain leaves out (a chainId shown but not signed: good on every chain) is -32602", async () => {
    const payload = typedWithDomainType();
    payload.types.EIP712Domain = payload.types.EIP712Domain!.filter((field) => field.name !== "chainId");
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify(payload)]);
    await expectBadParams("eth_signTypedData_v4", [
      address,
      JSON.stringify({ ...PERMIT, domain: { ...PERMIT.domain, salted: "0x01" } }),
    ]);
  });

  it("a message field its type does not declare (shown, not signed) is -32602, nested ones too", async () => {
    const extra = { ...PERMIT, message: { ...PERMIT.message, deadline: "0" } };
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify(extra)]);
    const nested = {
      ...PERMIT,
      types: { ...PERMIT.types, Batch: [{ name: "permits", type: "Permit[1]" }] },
      primaryType: "Batch",
      message: { permits: [{ ...PERMIT.message, nonce: "7" }] },
    };
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify(nested)]);
  });

  it("a fixed-size array of another length (viem hashes it, ethers refuses it) is -32602", async () => {
    const batch = {
      ...PERMIT,
      types: { ...PERMIT.types, Batch: [{ name: "permits", type: "Permit[2]" }] },
      primaryType: "Batch",
      message: { permits: [PERMIT.message] },
    };
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify(batch)]);
  });

  it("a JSON number past 2^53 (already rounded when parsed) is -32602; the same value as a string is signed exactly", async () => {
    const big = "100000000000000000001";
    await expectBadParams("eth_signTypedData_v4", [
      address,
      JSON.stringify(PERMIT).replace('"value":"1000"', `"value":${big}`),
    ]);
    const exact = { ...PERMIT, message: { ...PERMIT.message, value: big } };
    await signTyped(exact);
    expect(signed).to.deep.equal([hashTypedData({ ...exact, message: { ...exact.message, value: BigInt(big) } })]);
  });

  it("malformed typed data (not JSON, no primaryType, no such type) is -32602, not an internal error", async () => {
    await expectBadParams("eth_signTypedData_v4", [address, "{not json"]);
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify({ ...PERMIT, primaryType: undefined })]);
    await expectBadParams("eth_signTypedData_v4", [address, JSON.stringify({ ...PERMIT, primaryType: "Order" })]);
  });

  it("the client's signTypedData and the viem account refuse the same typed data, before asking the service", async () => {
    const payload = typedWithDomainType();
    payload.types.EIP712Domain = payload.types.EIP712Domain!.filter((field) => field.name !== "chainId");
    const typedData = payload as unknown as Parameters<IdwalletClient["signTypedData"]>[0]["typedData"];
    const asUser = { userId: user.userId, auth: user.userToken };
    expect(await idwallet.signTypedData({ ...asUser, typedData }).catch((error: unknown) => error)).to.be.instanceOf(
      TypeError,
    );
    const account = await toIdwalletAccount({ client: idwallet, ...asUser });
    expect(await account.signTypedData(typedData as never).catch((error: unknown) => error)).to.be.instanceOf(
      TypeError,
    );
    expect(signed).to.deep.equal([]);
  });

  it("eth_sendTransaction naming another chain's id is refused -32602, and nothing is sent on this one", async () => {
    await expectBadParams("eth_sendTransaction", [{ from: address, to: TARGET, value: "0x1", chainId: "0x1" }]);
    await expectBadParams("wallet_sendCalls", [{ from: address, chainId: "not a chain", calls: [{ to: TARGET }] }]);
    await expectBadParams("wallet_switchEthereumChain", [{ chainId: "mainnet" }]);
    expect(service.receivedAt("POST", "/v1/kernel/tx")).to.deep.equal([]);
  });

  it("wallet_getCapabilities answers for this account only (4100 for another), and only for the chains asked", async () => {
    const other = await refusal("wallet_getCapabilities", [TARGET]);
    expect(other.code).to.equal(RPC_ERROR.unauthorized);
    expect(await provider.request({ method: "wallet_getCapabilities", params: [address, ["0x1"]] })).to.deep.equal({});
    const mine = await provider.request({ method: "wallet_getCapabilities", params: [address, ["0x7a69"]] });
    expect(mine).to.deep.equal({ "0x7a69": WALLET_CAPABILITIES });
    // Without a list of chains: the wallet's chain, as EIP-5792 lets a wallet answer for the chains it serves.
    expect(await provider.request({ method: "wallet_getCapabilities", params: [address] })).to.deep.equal(mine);
  });

  it("wallet_getCallsStatus of an empty or dot id is 5730 and never reads another path (the app's list of requests)", async () => {
    for (const id of ["", ".", "..", 7]) {
      expect((await refusal("wallet_getCallsStatus", [id])).code).to.equal(RPC_ERROR.unknownBundleId);
    }
    expect(service.received.filter((entry) => entry.url.startsWith("/v1/kernel"))).to.deep.equal([]);
  });
});
