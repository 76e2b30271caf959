import { expect } from "chai";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Contract, EnsPlugin, JsonRpcProvider, Network, computeAddress, parseEther } from "ethers";
import { runAdminCli } from "../../scripts/admin/cli";
import { banner, demoTransaction } from "../../scripts/localStack/banner";
import { devKey } from "../../scripts/localStack/devKeys";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { postJson } from "../helpers/http";
import { startTestStack } from "../helpers/localStack";
import { demoAppToken } from "../helpers/stackClients";
import { databaseLocation } from "../../gateway/config/databaseSetting";

/** Runs the banner's example transaction as the demo app; returns the wallet that minted itself a token. */
async function mintAsDemoUser(stack: LocalStack): Promise<string> {
  const token = await demoAppToken(stack);
  const accepted = await postJson(`${stack.apiUrl}/v1/kernel/tx`, demoTransaction(stack), token);
  expect(accepted.status).to.equal(202);
  const final = await fetch(`${stack.apiUrl}/v1/kernel/tx/${String(accepted.body.id)}?wait=true`, {
    headers: { Authorization: `Bearer ${token}` },
  }).then((res) => res.json() as Promise<{ status: string; success: boolean; sender: string }>);
  expect(final).to.include({ status: "included", success: true });
  return final.sender;
}

/** The signer of each purpose in the stack's signature audit log, read with the admin CLI. */
async function auditSigners(stack: LocalStack): Promise<Map<string, Set<string>>> {
  const lines: string[] = [];
  const code = await runAdminCli(["--db", databaseLocation(stack.config), "audit", "export"], {
    env: {},
    output: { out: (text) => lines.push(text), err: (text) => lines.push(text) },
    clock: () => new Date(),
  });
  expect(code).to.equal(0);
  const signers = new Map<string, Set<string>>();
  for (const row of lines.map((line) => JSON.parse(line) as { purpose: string; signer: string })) {
    signers.set(row.purpose, (signers.get(row.purpose) ?? new Set()).add(row.signer));
  }
  return signers;
}

describe("Local stack in HSM mode (e2e: IDWALLET_HSM=1, the dev keys in a SoftHSM2 token under the data directory)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-hsm-"));
  const tokenDir = path.join(dataDir, "softhsm");
  let stack: LocalStack | undefined;
  after(async () => {
    await stack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("makes the token on the first start and signs through it: no raw key in the configuration, the banner says so", async () => {
    const before = process.env.SOFTHSM2_CONF;
    stack = await startTestStack(dataDir, { hsm: true });
    const { config } = stack;
    expect([config.walletSignerKey, config.sponsorSignerKey, config.relayerKey, config.safe.operatorKey]).to.deep.equal(
      [undefined, undefined, undefined, undefined],
    );
    expect(config.ens.signerKeys).to.deep.equal([]);
    for (const key of ["walletSigner", "sponsorSigner", "relayer", "safeOperator", "ccipSigner"] as const) {
      expect(config.custody[key]).to.match(/^pkcs11:token=idwallet-dev;object=[a-z-]+\?module-path=/);
    }
    expect(statSync(path.join(tokenDir, "pin")).mode & 0o777).to.equal(0o600);
    const printed = banner(stack);
    expect(printed).to.contain('in the SoftHSM2 token "idwallet-dev" (HSM mode, IDWALLET_HSM=1)');
    expect(printed).to.contain(tokenDir);
    // The same dev keys as without the mode, so the deployment (and every address) is the same.
    expect(stack.custody.addresses.safeOperator).to.equal(computeAddress(devKey(5)));
    const networks = (await (await fetch(`${stack.apiUrl}/v1/networks`)).json()) as { safeOperator: string };
    expect(networks.safeOperator).to.equal(computeAddress(devKey(5)));

    const wallet = await mintAsDemoUser(stack);
    const chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    const erc20 = new Contract(stack.demoTokens.erc20, ["function balanceOf(address) view returns (uint256)"], chain);
    expect(await erc20.getFunction("balanceOf")(wallet)).to.equal(parseEther("1"));
    chain.destroy();
    // A text record comes from the gateway, signed by the CCIP key in the token and checked by the resolver.
    const network = new Network("localhost", 31337);
    network.attachPlugin(new EnsPlugin(stack.ens.registry, 31337));
    const ens = new JsonRpcProvider(stack.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
    expect(await (await ens.getResolver("alice.github.idwallet.eth"))!.getText("com.github")).to.equal("alice");
    ens.destroy();
    const signers = await auditSigners(stack);
    // New wallets run code 2.1: the wallet key signs each bundle's custody root.
    expect([...signers.get("custodyRoot")!]).to.deep.equal([computeAddress(devKey(1))]);
    expect([...signers.get("relayerTransaction")!]).to.deep.equal([computeAddress(devKey(4))]);

    await stack.close();
    stack = undefined;
    expect(process.env.SOFTHSM2_CONF).to.equal(before);
  });

  it("reuses the token on the next start on the same data directory", async () => {
    const description = readFileSync(path.join(tokenDir, "token.json"), "utf8");
    const tokens = readdirSync(path.join(tokenDir, "tokens"));
    const pin = readFileSync(path.join(tokenDir, "pin"), "utf8");
    stack = await startTestStack(dataDir, { hsm: true });
    expect(readFileSync(path.join(tokenDir, "token.json"), "utf8")).to.equal(description);
    expect(readdirSync(path.join(tokenDir, "tokens"))).to.deep.equal(tokens);
    expect(readFileSync(path.join(tokenDir, "pin"), "utf8")).to.equal(pin);
    await mintAsDemoUser(stack);
  });
});
