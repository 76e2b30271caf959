import { expect } from "chai";
import { testCustodySigner } from "../../helpers/keySigners";
import request from "supertest";
import pino from "pino";
import { AbiCoder, Interface, Wallet, dnsEncode, namehash, recoverAddress } from "ethers";
import golden from "../../vectors/addresses.json";
import { loadConfig } from "../../../gateway/config/load";
import { ccipSignatureHash } from "../../../gateway/ens/ccipSignature";
import { createCcipGateway } from "../../../gateway/routes/ccip/ccipGateway";
import { createSharedLimits } from "../../../gateway/limits/sharedLimits";
import type { NodeHandler } from "../../../gateway/http/nodeHandler";
import { parseUserId } from "../../../gateway/identity/userId";
import { deriveWalletAddress } from "../../../gateway/identity/walletAddress";
import { type KnownProviders, createKnownProviders } from "../../../gateway/identity/knownProviders";
import { runAdminCommand } from "../../../scripts/admin/commands";
import { hs256Provider } from "../../helpers/providerProofs";
import { type TestStore, openTestStore } from "../storage/builders";

const abi = AbiCoder.defaultAbiCoder();
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function text(bytes32 node, string key) view returns (string)",
]);
const RESOLVER = "0x00000000000000000000000000000000000000e5";
const KEY = Wallet.createRandom();
const ZERO = "0x0000000000000000000000000000000000000000";
/** How often this test's cache re-reads the providers; the service's own interval is 2 s. */
const REFRESH_MS = 100;
/** How long a change may take to show: one refresh interval, plus slack for a loaded machine. */
const BOUND_MS = REFRESH_MS + 900;

const demoAlice = deriveWalletAddress(golden.kernelFactory, "kernel", parseUserId("demo:alice"));

/** The address the gateway answers for `name`, after checking the answer's signature. */
async function addrOf(gateway: NodeHandler, name: string): Promise<string> {
  const callData = RESOLVE.encodeFunctionData("resolve", [
    dnsEncode(name),
    RECORDS.encodeFunctionData("addr", [namehash(name)]),
  ]);
  const res = await request(gateway).get(`/ccip/${RESOLVER}/${callData}.json`).expect(200);
  const [result, expires, sig] = abi.decode(["bytes", "uint64", "bytes"], res.body.data) as unknown as [
    string,
    bigint,
    string,
  ];
  expect(recoverAddress(ccipSignatureHash(RESOLVER, expires, callData, result), sig)).to.equal(KEY.address);
  return abi.decode(["address"], result)[0] as string;
}

/** Asks until the gateway answers `expected` for `name`; returns how long that took, failing past `BOUND_MS`. */
async function settlesTo(gateway: NodeHandler, name: string, expected: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    const answered = await addrOf(gateway, name);
    const elapsed = Date.now() - start;
    if (answered === expected) return elapsed;
    if (elapsed > BOUND_MS) expect.fail(`${name} still answered ${answered} after ${elapsed} ms, not ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("CCIP-read gateway: names of app-owned providers", () => {
  let store: TestStore;
  let providers: KnownProviders;
  let gateway: NodeHandler;

  beforeEach(async () => {
    store = await openTestStore();
    providers = createKnownProviders({ store: store.repos.providers, intervalMs: REFRESH_MS });
    await providers.refresh();
    const config = loadConfig(
      {},
      {
        testDeployment: true,
        auth: { tokenSecret: "ccip-providers-test-secret-of-32-chars" },
        contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
        ens: { signerKeys: [KEY.privateKey], domain: "idwallet.eth" },
      },
    );
    gateway = createCcipGateway(
      config,
      testCustodySigner(KEY.privateKey),
      () => new Date(),
      pino({ level: "silent" }),
      providers,
      createSharedLimits({ counters: store.repos.limitCounters, clock: () => new Date() }),
    )!;
  });

  afterEach(async () => {
    providers.stop();
    await store.database.close();
  });

  it("resolves alice.demo.<domain> once demo is registered, and stops within the refresh bound after `providers remove`", async () => {
    const name = "alice.demo.idwallet.eth";
    // Asked before: the "no record" answer is cached, and must not outlive the registration.
    expect(await addrOf(gateway, name)).to.equal(ZERO);
    const { app } = await store.repos.apps.create({ name: "demo app" });
    await store.repos.providers.register(app.id, "demo", hs256Provider("demo-provider-secret-of-32-characters"));
    expect(await settlesTo(gateway, name, demoAlice)).to.be.at.most(BOUND_MS);

    const output = { out: () => undefined, err: () => undefined };
    expect(await runAdminCommand({ kind: "providers remove", provider: "demo" }, store.repos, output)).to.equal(0);
    // A removed provider's names stop resolving within the refresh bound, cached answer or not.
    expect(await settlesTo(gateway, name, ZERO)).to.be.at.most(BOUND_MS);
    // The name is the app's for good: adding it again brings its names back.
    await store.repos.providers.register(app.id, "demo", hs256Provider("demo-provider-secret-of-32-characters"));
    expect(await settlesTo(gateway, name, demoAlice)).to.be.at.most(BOUND_MS);
  });

  it("an attacker's unregistered provider, or a capitalized subject, resolves to nothing", async () => {
    expect(await addrOf(gateway, "alice.evil.idwallet.eth")).to.equal(ZERO);
    const { app } = await store.repos.apps.create({ name: "demo app" });
    await store.repos.providers.register(app.id, "demo", hs256Provider("demo-provider-secret-of-32-characters"));
    await settlesTo(gateway, "alice.demo.idwallet.eth", demoAlice);
    // demo:Alice has no name; the name Alice.demo is alice.demo, demo:alice's.
    expect(await addrOf(gateway, "Alice.demo.idwallet.eth")).to.equal(demoAlice);
    expect(await addrOf(gateway, "alice.evil.idwallet.eth")).to.equal(ZERO);
  });

  it("a removed provider's names stop, while built-in names keep resolving", async () => {
    const alice = golden.vectors.find((v) => v.input === "github:alice")!.kernel;
    const { app } = await store.repos.apps.create({ name: "demo app" });
    await store.repos.providers.register(app.id, "demo", hs256Provider("demo-provider-secret-of-32-characters"));
    await settlesTo(gateway, "alice.demo.idwallet.eth", demoAlice);
    await store.repos.providers.remove("demo");
    await settlesTo(gateway, "alice.demo.idwallet.eth", ZERO);
    expect(await addrOf(gateway, "alice.github.idwallet.eth")).to.equal(alice);
  });
});
