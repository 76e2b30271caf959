import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import fc from "fast-check";
import { AbiCoder, Interface, ZeroAddress, namehash } from "ethers";
import { nameToUserId, userIdToName } from "../../gateway/ens/names";
import { type NameOwner, answerRecord } from "../../gateway/ens/records";
import { formatUserId, isBuiltInProvider, parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, factoryImplementation, proxyInitCodeHash } from "../../gateway/identity/walletAddress";
import golden from "../vectors/addresses.json";
import { rawDnsEncode, rawNamehash } from "../helpers/dnsNames";
import { ensNameArbitrary } from "../helpers/ensNameArbitraries";

const DOMAIN = "idwallet.eth";
const GENERATED_NAMES = 10_000;
const BATCH = 20;
/** EIP-3668 OffchainLookup(address,string[],bytes,bytes4,bytes). */
const OFFCHAIN_LOOKUP = "0x556f1830";
const records = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);

/** The ENS name of a canonical user id, if it has one (and if the id is still valid under the current rules). */
function nameOf(userId: string): string | undefined {
  try {
    return userIdToName(parseUserId(userId), DOMAIN, isBuiltInProvider);
  } catch {
    return undefined;
  }
}

/** The address an answer to query(name, i) carries, for reading disagreements: "nobody" for none. */
function answeredAddress(result: string, i: number): string {
  const abi = AbiCoder.defaultAbiCoder();
  let address: string;
  if (i % 3 === 0) address = abi.decode(["address"], result)[0] as string;
  else if (i % 3 === 1) address = abi.decode(["bytes"], result)[0] as string;
  else
    address = (abi.decode(["bytes[]"], result)[0] as string[]).map((item) => abi.decode(["bytes"], item)[0]).join(",");
  return address === ZeroAddress || address === "0x" || address === "0x,0x" ? "nobody" : address;
}

/** Names the resolver answers on chain (docs/ens.md): labels below the domain in [a-z0-9-], a built-in provider. */
function derivedOnChain(name: string): boolean {
  const suffix = `.${DOMAIN}`;
  if (!name.endsWith(suffix)) return false;
  const labels = name.slice(0, -suffix.length).split(".");
  return isBuiltInProvider(labels.at(-1)!) && labels.every((label) => /^[a-z0-9-]+$/.test(label));
}

/** The address queries asked, in turn: addr(node), addr(node, 60), and both default EVM and Base in a multicall. */
function query(name: string, i: number): string {
  const node = rawNamehash(name);
  if (i % 3 === 0) return records.encodeFunctionData("addr(bytes32)", [node]);
  if (i % 3 === 1) return records.encodeFunctionData("addr(bytes32,uint256)", [node, 60n]);
  return records.encodeFunctionData("multicall", [
    [
      records.encodeFunctionData("addr(bytes32,uint256)", [node, 0x80000000n]),
      records.encodeFunctionData("addr(bytes32,uint256)", [node, 0x80000000n | 8453n]),
    ],
  ]);
}

async function fixture() {
  const [owner] = await ethers.getSigners();
  // The golden vectors' factory: CREATE2 needs no code there, only its address and the wallets' init code hash.
  const factory = golden.kernelFactory;
  const resolver = await ethers.deployContract("IdwalletResolver", [
    owner!.address,
    factory,
    proxyInitCodeHash(factoryImplementation(factory)),
    namehash(DOMAIN),
  ]);
  await resolver.setChains([8453], true);
  await resolver.setUrls(["https://gateway.example/ccip/{sender}/{data}.json"]);
  const reader = await ethers.deployContract("ResolverBatchReader");

  /** Who the gateway says a name stands for (gateway/ens/ccipService.ts). */
  const gatewayOwner = (name: string): NameOwner | undefined => {
    const userId = nameToUserId(name, DOMAIN, isBuiltInProvider);
    return userId && { userId, wallet: deriveWalletAddress(factory, "kernel", userId) };
  };

  /** Every name where the resolver disagrees with the gateway, with what each said. */
  const disagreements = async (names: readonly string[]): Promise<string[]> => {
    const found: string[] = [];
    for (let start = 0; start < names.length; start += BATCH) {
      const batch = names.slice(start, start + BATCH);
      const data = batch.map((name, i) => query(name, start + i));
      const [answered, results] = await reader.resolveAll(resolver, batch.map(rawDnsEncode), data);
      batch.forEach((name, i) => {
        const owner = gatewayOwner(name);
        const said = `gateway: ${owner ? `${formatUserId(owner.userId)} ${owner.wallet}` : "nobody"}`;
        if (answered[i] !== derivedOnChain(name)) {
          found.push(`${name}: ${answered[i] ? "answered on chain" : "sent to the gateway"} (${said})`);
        } else if (!answered[i] && !results[i]!.startsWith(OFFCHAIN_LOOKUP)) {
          found.push(`${name}: reverted ${results[i]!.slice(0, 10)}, not OffchainLookup`);
        } else if (answered[i] && results[i] !== answerRecord(data[i]!, owner)) {
          found.push(`${name}: chain: ${answeredAddress(results[i]!, start + i)} (${said})`);
        }
      });
    }
    return found;
  };
  return { resolver, disagreements };
}

/** The names in `found`, grouped by provider, a few of each, for a readable failure. */
function summary(found: readonly string[]): string {
  const byProvider = new Map<string, string[]>();
  for (const line of found) {
    const provider = line.split(":")[0]!.split(".").at(-3) ?? "?";
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), line]);
  }
  return [...byProvider]
    .map(([provider, lines]) => `${provider} (${lines.length}):\n  ${lines.slice(0, 6).join("\n  ")}`)
    .join("\n");
}

describe("IdwalletResolver and the gateway agree (on-chain derivation = TypeScript derivation)", () => {
  it("on every golden vector that has a name", async () => {
    const { resolver, disagreements } = await loadFixture(fixture);
    const named = golden.vectors.flatMap((v) => {
      const name = (v as { name?: string }).name ?? nameOf(v.userId);
      return name === undefined ? [] : [{ ...v, name }];
    });
    expect(named.map((v) => v.userId)).to.include.members([
      "github:alice",
      "tel:15551234567",
      "email:alice@example.com",
    ]);
    const found = await disagreements(named.map((v) => v.name));
    expect(found.length, `disagreements:\n${summary(found)}`).to.equal(0);
    for (const v of named.filter((v) => derivedOnChain(v.name))) {
      expect(await resolver.walletOf(rawDnsEncode(v.name)), v.name).to.deep.equal([true, v.kernel]);
    }
  });

  it(`on ${GENERATED_NAMES.toLocaleString("en")} generated names, including names that stand for nobody`, async () => {
    const { disagreements } = await loadFixture(fixture);
    const names = fc.sample(ensNameArbitrary(DOMAIN), { numRuns: GENERATED_NAMES, seed: 17 });
    // The sample must exercise both answers on chain and both routes: a wallet, nobody, the gateway.
    const onChain = names.filter(derivedOnChain);
    const withWallet = onChain.filter((name) => nameToUserId(name, DOMAIN, isBuiltInProvider) !== undefined);
    expect(onChain.length).to.be.above(GENERATED_NAMES * 0.8);
    expect(withWallet.length).to.be.above(GENERATED_NAMES * 0.3);
    expect(onChain.length - withWallet.length).to.be.above(GENERATED_NAMES * 0.2);
    const found = await disagreements(names);
    expect(found.length, `disagreements:\n${summary(found)}`).to.equal(0);
  });
});
