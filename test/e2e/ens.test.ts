import { expect } from "chai";
import { createServer } from "node:net";
import { AbiCoder, EnsPlugin, Interface, JsonRpcProvider, Network, dnsEncode, namehash } from "ethers";
import { runAdminCli } from "../../scripts/admin/cli";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { IdwalletResolver__factory } from "../../typechain-types";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { databaseEnv } from "../helpers/testDatabase";

const records = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
]);

/** A local port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A provider configured as a wallet pointed at the local stack would be: its chain and ENS registry. */
function walletProvider(stack: LocalStack): JsonRpcProvider {
  const network = new Network("localhost", 31337);
  network.attachPlugin(new EnsPlugin(stack.ens.registry, 31337));
  return new JsonRpcProvider(stack.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
}

describe("ENS names through the local stack (e2e: ethers resolveName → registry → IdwalletResolver → chain or gateway)", () => {
  let stack: LocalStack;
  let provider: JsonRpcProvider;
  const apiAddress = async (userId: string): Promise<string> => {
    const { body } = await postJson(`${stack.apiUrl}/v1/resolver`, { userIds: userId });
    return (body.users as { accountAddress: string }[])[0]!.accountAddress;
  };

  before(async () => {
    stack = await startTestStack();
    provider = walletProvider(stack);
  });
  after(async () => {
    provider.destroy();
    await stack.close();
  });

  for (const [name, userId] of [
    ["alice.github.idwallet.eth", "github:alice"],
    ["15551234567.tel.idwallet.eth", "tel:+1 (555) 123-4567"],
    ["alice.at.example.com.email.idwallet.eth", "email:Alice@Example.com"],
  ]) {
    it(`resolveName("${name}") equals /v1/resolver for ${userId}`, async () => {
      const expected = await apiAddress(userId!);
      expect(await provider.resolveName(name!)).to.equal(expected);
    });
  }

  it("gives the same address for an L2 coin type (ENSIP-11) and serves text records", async () => {
    const resolver = await provider.getResolver("alice.github.idwallet.eth");
    expect(resolver).to.not.equal(null);
    const expected = await apiAddress("github:alice");
    // ethers takes an EVM chain's id here and asks for its ENSIP-11 coin type, 0x80000000 | chainId.
    expect(await resolver!.getAddress(8453)).to.equal(expected);
    expect(await resolver!.getAddress(42161)).to.equal(expected);
    expect(await resolver!.getAddress(60)).to.equal(expected);
    expect(await resolver!.getText("com.github")).to.equal("alice");
    expect(await resolver!.getText("idwallet.userId")).to.equal("github:alice");
    expect(await resolver!.getText("no.such.key")).to.equal("");
  });

  it("resolves each id's ensName from /v1/resolver: an X handle with '_', and the demo app's own provider", async () => {
    const { body } = await postJson(`${stack.apiUrl}/v1/resolver`, { userIds: "x:Jack_Dorsey,demo:alice,demo:Alice" });
    const users = body.users as { accountAddress: string; ensName: string | null }[];
    expect(users.map((u) => u.ensName)).to.deep.equal(["jack-dorsey.x.idwallet.eth", "alice.demo.idwallet.eth", null]);
    for (const user of users.slice(0, 2))
      expect(await provider.resolveName(user.ensName!)).to.equal(user.accountAddress);
  });

  it("resolves names outside the domain, or of unknown providers, to null", async () => {
    expect(await provider.resolveName("alice.github.other.eth")).to.equal(null);
    expect(await provider.resolveName("alice.myspace.idwallet.eth")).to.equal(null);
  });

  it("resolves addresses on chain with the gateway unreachable (resolver pointed at a closed port)", async () => {
    const name = "alice.github.idwallet.eth";
    const expected = await apiAddress("github:alice");
    const admin = await provider.getSigner(0);
    const resolver = IdwalletResolver__factory.connect(stack.deployment.contracts.ensResolver, admin);
    const urls = [...(await resolver.urls())];
    await (await resolver.setUrls([`http://127.0.0.1:${await closedPort()}/ccip/{sender}/{data}.json`])).wait();
    try {
      expect(await provider.resolveName(name)).to.equal(expected);
      const ensResolver = await provider.getResolver(name);
      // ethers asks for the ENSIP-11 coin type of Base, 0x80000000 | 8453.
      expect(await ensResolver!.getAddress(8453)).to.equal(expected);
      // A plain eth_call, CCIP-read off: the answer is in the return data, no OffchainLookup.
      const resolve = async (data: string) =>
        resolver.interface.decodeFunctionResult(
          "resolve",
          await provider.call({
            to: await resolver.getAddress(),
            data: resolver.interface.encodeFunctionData("resolve", [dnsEncode(name), data]),
            enableCcipRead: false,
          }),
        )[0] as string;
      const abi = AbiCoder.defaultAbiCoder();
      expect(
        abi.decode(["address"], await resolve(records.encodeFunctionData("addr(bytes32)", [namehash(name)])))[0],
      ).to.equal(expected);
      const base = await resolve(
        records.encodeFunctionData("addr(bytes32,uint256)", [namehash(name), 0x80000000n | 8453n]),
      );
      expect(abi.decode(["bytes"], base)[0]).to.equal(expected.toLowerCase());
      // Records only the gateway answers fail: it is really out of reach.
      let failure: unknown;
      await ensResolver!.getText("com.github").catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(Error);
    } finally {
      await (await resolver.setUrls(urls)).wait();
    }
    expect(await (await provider.getResolver(name))!.getText("com.github")).to.equal("alice");
  });

  it("keeps resolving names while the API is in maintenance", async () => {
    const cli = (...argv: string[]) =>
      runAdminCli(argv, {
        env: databaseEnv(databaseLocation(stack.config)),
        output: { out: () => undefined, err: () => undefined },
        clock: () => new Date(),
      });
    const expected = await apiAddress("github:alice");
    expect(await cli("maintenance", "on")).to.equal(0);
    try {
      // The service re-reads the switch every 2 s.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const api = await fetch(`${stack.apiUrl}/v1/resolver`, { method: "POST", body: "{}" });
      expect(api.status).to.equal(503);
      expect(await provider.resolveName("alice.github.idwallet.eth")).to.equal(expected);
      // Text records come from the gateway, which stays up.
      const resolver = await provider.getResolver("alice.github.idwallet.eth");
      expect(await resolver!.getText("idwallet.userId")).to.equal("github:alice");
    } finally {
      expect(await cli("maintenance", "off")).to.equal(0);
    }
  });
});
