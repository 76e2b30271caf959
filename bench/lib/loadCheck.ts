import { AbiCoder, concat, getCreate2Address, getCreateAddress, keccak256, toUtf8Bytes } from "ethers";
import { isBuiltInProvider } from "../../gateway/identity/userId";
import vectors from "../../test/vectors/addresses.json";
import { ERC1967Proxy__factory } from "../../typechain-types";
import { LoadFailure } from "./loadRun";

interface ResolverAnswer {
  readonly users: readonly { userId: string; canonicalUserId: string; accountAddress: string }[];
}

// The compiled ERC1967Proxy with its constructor arguments, so the check does not reuse the service's code.
const proxyInitCodeHash = (implementation: string): string =>
  keccak256(
    concat([
      ERC1967Proxy__factory.bytecode,
      AbiCoder.defaultAbiCoder().encode(["address", "bytes"], [implementation, "0x"]),
    ]),
  );
const KERNEL_INIT_CODE_HASH = proxyInitCodeHash(getCreateAddress({ from: vectors.kernelFactory, nonce: 1 }));

/** The kernel wallet address of a canonical id, computed with plain ethers as the golden vectors define it. */
export const referenceAddress = (canonicalUserId: string): string =>
  getCreate2Address(
    vectors.kernelFactory,
    keccak256(toUtf8Bytes(`idwallet:kernel:v1:${canonicalUserId}`)),
    KERNEL_INIT_CODE_HASH,
  );

async function resolve(url: string, userIds: readonly string[]): Promise<ResolverAnswer> {
  const response = await fetch(`${url}/v1/resolver`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ userIds: userIds.join(",") }),
  });
  if (response.status !== 200) throw new LoadFailure(`check: status ${response.status}: ${await response.text()}`);
  return (await response.json()) as ResolverAnswer;
}

/**
 * Before measuring, proves the server answers what it should: the golden vectors of
 * test/vectors/addresses.json, and a bench batch against addresses computed here with plain ethers.
 */
export async function checkAnswers(url: string, benchIds: readonly string[]): Promise<void> {
  // The benchmark's server has no app registered, so app-owned providers are unknown to it (400 UNKNOWN_PROVIDER).
  const builtIn = vectors.vectors.filter((v) => isBuiltInProvider(v.userId.slice(0, v.userId.indexOf(":"))));
  const golden = await resolve(
    url,
    builtIn.map((v) => v.input),
  );
  builtIn.forEach((v, i) => {
    const got = golden.users[i];
    if (got?.canonicalUserId !== v.userId || got.accountAddress !== v.kernel) {
      throw new LoadFailure(`check: golden vector ${JSON.stringify(v.input)} answered ${JSON.stringify(got)}`);
    }
  });
  const batch = await resolve(url, benchIds);
  if (batch.users.length !== benchIds.length) {
    throw new LoadFailure(`check: ${benchIds.length} ids sent, ${batch.users.length} answered`);
  }
  batch.users.forEach((user, i) => {
    if (user.userId !== benchIds[i]!.trim() || user.accountAddress !== referenceAddress(user.canonicalUserId)) {
      throw new LoadFailure(`check: ${JSON.stringify(benchIds[i])} answered ${JSON.stringify(user)}`);
    }
  });
}
