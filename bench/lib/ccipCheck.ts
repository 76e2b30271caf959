import { AbiCoder, Interface, dnsEncode, namehash, recoverAddress } from "ethers";
import vectors from "../../test/vectors/addresses.json";
import { ccipSignatureHash } from "../../gateway/ens/ccipSignature";
import { type BenchLookup, type BenchRecord, BENCH_DOMAIN, BENCH_SENDER, benchLookup } from "./ccipLookups";
import { referenceAddress } from "./loadCheck";
import { LoadFailure } from "./loadRun";

const abi = AbiCoder.defaultAbiCoder();
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function text(bytes32 node, string key) view returns (string)",
]);

/** The lookup ethers itself would send for `record` of `name`. */
function ethersCallData(name: string, record: BenchRecord): string {
  const node = namehash(name);
  const call =
    record.kind === "addr"
      ? RECORDS.encodeFunctionData("addr(bytes32)", [node])
      : record.kind === "coin"
        ? RECORDS.encodeFunctionData("addr(bytes32,uint256)", [node, record.coinType])
        : RECORDS.encodeFunctionData("text", [node, record.key]);
  return RESOLVE.encodeFunctionData("resolve", [dnsEncode(name), call]);
}

/** The record's answer as the gateway documents it, computed here without the service's code. */
function expectedResult(lookup: BenchLookup): string {
  const { record, userId } = lookup;
  const wallet = referenceAddress(userId);
  const [provider, username] = [userId.slice(0, userId.indexOf(":")), userId.slice(userId.indexOf(":") + 1)];
  switch (record.kind) {
    case "addr":
      return abi.encode(["address"], [wallet]);
    case "coin":
      return abi.encode(["bytes"], [wallet.toLowerCase()]);
    case "text": {
      const text: Record<string, string> = {
        "com.github": provider === "github" ? username : "",
        description: `idwallet wallet of ${userId}`,
        "idwallet.userId": userId,
        email: provider === "email" ? username : "",
      };
      return abi.encode(["string"], [text[record.key] ?? ""]);
    }
  }
}

/** GETs a lookup and returns its answer, after checking the status and the signature. */
async function fetchVerified(url: string, lookup: BenchLookup, signer: string): Promise<string> {
  const response = await fetch(`${url}${lookup.path}`);
  const text = await response.text();
  if (response.status !== 200) throw new LoadFailure(`check: ${lookup.name}: status ${response.status}: ${text}`);
  const { data } = JSON.parse(text) as { data: string };
  const [result, expires, sig] = abi.decode(["bytes", "uint64", "bytes"], data) as unknown as [string, bigint, string];
  const recovered = recoverAddress(ccipSignatureHash(BENCH_SENDER, expires, lookup.callData, result), sig);
  if (recovered !== signer) throw new LoadFailure(`check: ${lookup.name}: signed by ${recovered}, not ${signer}`);
  if (expires <= BigInt(Math.floor(Date.now() / 1000))) throw new LoadFailure(`check: ${lookup.name}: expired answer`);
  return result;
}

/**
 * Before measuring, proves over HTTP that the gateway answers what it should: the golden vector of
 * github:alice, and `samples` (bench lookups of every kind) against answers computed here; that every
 * answer is signed by `signer`; and that the bench's hand-built lookups are byte for byte ethers' own.
 */
export async function checkCcipAnswers(url: string, signer: string, samples: readonly BenchLookup[]): Promise<void> {
  const goldenAlice = vectors.vectors.find((v) => v.input === "github:alice")!.kernel;
  const alice = benchLookup(`alice.github.${BENCH_DOMAIN}`, "github:alice", { kind: "addr" });
  for (const lookup of [alice, ...samples]) {
    if (lookup.callData !== ethersCallData(lookup.name, lookup.record).toLowerCase()) {
      throw new LoadFailure(`check: the bench's lookup of ${lookup.name} differs from ethers'`);
    }
    const result = await fetchVerified(url, lookup, signer);
    if (result !== expectedResult(lookup)) {
      throw new LoadFailure(`check: ${lookup.name} ${JSON.stringify(lookup.record)} answered ${result}`);
    }
  }
  const [address] = abi.decode(["address"], await fetchVerified(url, alice, signer)) as unknown as [string];
  if (address !== goldenAlice) throw new LoadFailure(`check: github:alice resolved to ${address}, not ${goldenAlice}`);
}
