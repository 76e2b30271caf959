import { expect } from "chai";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { JsonRpcProvider, type Signer, Wallet, parseEther, parseUnits } from "ethers";
import type { z } from "zod";
import {
  AllOrdersItem,
  OpenOrdersItem,
  PastOrder,
  PortfolioItem,
  WalletInformation,
} from "../../gateway/routes/dust.schema";
import { runAdminCli } from "../../scripts/admin/cli";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestPriceFeed__factory, TestToken__factory, type TestToken } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { databaseLocation } from "../../gateway/config/databaseSetting";
import { databaseEnv } from "../helpers/testDatabase";

type Json = Record<string, unknown>;
type Item = z.infer<typeof PortfolioItem>;

/** Spec §2.8 shapes, exactly: no field missing, none added. */
const strictly = {
  wallet: WalletInformation.extend({
    portfolio: PortfolioItem.strict().array(),
    past_orders: PastOrder.strict().array(),
  }).strict(),
  all: AllOrdersItem.strict().array(),
  open: OpenOrdersItem.strict().array(),
};

describe("Dust-order interface (e2e: /api on the local stack, balances and feeds read on chain)", () => {
  let stack: LocalStack;
  let chain: JsonRpcProvider;
  let deployer: Signer;
  let demo: TestToken;

  const get = async (route: string) => {
    const res = await fetch(`${stack.apiUrl}${route}`);
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json & Json[] };
  };
  /** Runs an admin CLI command on the stack's database, as an operator would. */
  const admin = async (line: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(line.split(" "), {
      env: databaseEnv(databaseLocation(stack.config)),
      output: { out: (t) => out.push(t), err: (t) => err.push(t) },
      clock: () => new Date(),
    });
    expect(code, `${line}: ${err.join("\n")}`).to.equal(0);
    return out.join("\n");
  };
  const newToken = async () => {
    const token = await new TestToken__factory(deployer).deploy();
    await token.waitForDeployment();
    return token;
  };
  const wallet = async (address: string) => {
    const res = await get(`/api/${address}`);
    expect(res.status).to.equal(200);
    return strictly.wallet.parse(res.body);
  };
  const item = (info: { portfolio: Item[] }, symbol: string) => info.portfolio.find((i) => i.token.symbol === symbol)!;

  before(async () => {
    stack = await startTestStack();
    chain = new JsonRpcProvider(stack.rpcUrl, undefined, { cacheTimeout: -1 });
    deployer = await chain.getSigner(0);
    demo = TestToken__factory.connect(stack.demoTokens.erc20, deployer);
  });
  after(async () => {
    chain.destroy();
    await stack.close();
  });

  it("answers an address with nothing: 200, an empty portfolio and no past orders", async () => {
    const address = Wallet.createRandom().address;
    expect(await wallet(address)).to.deep.equal({ address, portfolio: [], past_orders: [] });
    expect(await wallet(address.toLowerCase())).to.deep.include({ address });
  });

  it("values a wallet's listed tokens as the chain, the price table and the Chainlink feed say", async () => {
    const holder = Wallet.createRandom().address;
    const minted = await (await demo.mint(holder, parseEther("40"))).wait();
    const mintedAt = new Date((await chain.getBlock(minted!.blockNumber))!.timestamp * 1000).toISOString();
    // A token the operator does not sweep, and one priced by a feed of its own (2 USD).
    const other = await newToken();
    const feedy = await newToken();
    const feedyFeed = await new TestPriceFeed__factory(deployer).deploy(8, 2n * 10n ** 8n);
    await feedyFeed.waitForDeployment();
    await admin(`dust tokens add localhost ${await other.getAddress()} OTHER --unsupported`);
    await admin(`dust tokens add localhost ${await feedy.getAddress()} FEEDY`);
    await admin(`dust price set localhost ${await feedy.getAddress()} --feed ${await feedyFeed.getAddress()}`);
    await (await other.mint(holder, parseEther("7"))).wait();
    await (await feedy.mint(holder, parseUnits("2.5", 18))).wait();
    const listedButNotHeld = await newToken();
    await admin(`dust tokens add localhost ${await listedButNotHeld.getAddress()} NONE`);

    const ethUsd = 3000; // the stack's ETH/USD feed
    const info = await wallet(holder);
    expect(info.portfolio.map((i) => i.token.symbol).sort()).to.deep.equal(["DEMO", "FEEDY", "OTHER"]);
    expect(item(info, "DEMO")).to.deep.equal({
      token: { symbol: "DEMO", contract_address: stack.demoTokens.erc20, status: "sweepable" },
      balance: { amount: 40, asset_type: "erc20", usd_value: 20, eth_value: 20 / ethUsd },
      quote_rate: 0.5,
      last_transferred_at: mintedAt,
      sweeping_value: { usd: 20, eth: 20 / ethUsd },
    });
    expect(item(info, "OTHER")).to.deep.include({ quote_rate: 0, sweeping_value: { usd: 0, eth: 0 } });
    expect(item(info, "OTHER").token.status).to.equal("unsupported");
    expect(item(info, "FEEDY").token.status).to.equal("sweepable");
    expect(item(info, "FEEDY").balance).to.deep.include({ amount: 2.5, usd_value: 5, eth_value: 5 / ethUsd });

    // The feeds are read live: a new ETH/USD answer moves every ETH value.
    const ethFeed = TestPriceFeed__factory.connect(stack.dust.ethUsdFeed, deployer);
    await (await ethFeed.setAnswer(4000n * 10n ** 8n)).wait();
    const repriced = await wallet(holder);
    expect(item(repriced, "DEMO").balance.eth_value).to.equal(20 / 4000);
    await (await ethFeed.setAnswer(3000n * 10n ** 8n)).wait();
    // A feed answering nothing usable (0) leaves the token unpriced: unsupported, not wrongly valued.
    await (await feedyFeed.setAnswer(0)).wait();
    expect(item(await wallet(holder), "FEEDY").token).to.deep.include({ status: "unsupported" });
  });

  it("follows orders: open, the token is approved and listed in /api/orders; swept, it is a past order", async () => {
    const maker = Wallet.createRandom().address;
    await (await demo.mint(maker, parseEther("3"))).wait();
    const approvalTx = `0x${"a1".repeat(32)}`;
    const created = await admin(`dust orders create localhost ${maker} ${stack.demoTokens.erc20} 3 --tx ${approvalTx}`);
    const id = /order (\S+):/.exec(created)![1]!;
    expect(item(await wallet(maker), "DEMO").token.status).to.equal("approved");
    expect(item(await wallet(maker), "DEMO").sweeping_value).to.deep.equal({ usd: 0, eth: 0 });

    const open = strictly.open.parse((await get("/api/orders")).body);
    expect(open).to.deep.include({
      balance: "3.0",
      token: ["DEMO", stack.demoTokens.erc20],
      maker,
      time: open.find((o) => o.maker === maker)!.time,
      tx: approvalTx,
    });
    expect(strictly.all.parse((await get("/api/all-orders")).body).find((o) => o.maker === maker)).to.deep.include({
      balance: "3.0",
      symbol: "DEMO",
      tx: approvalTx,
    });

    const sweepTx = `0x${"b2".repeat(32)}`;
    await admin(
      `dust orders settle ${id} --tx ${sweepTx} --block 77 --eth 0.0005 --eth-price 3000 --time 2026-11-23T10:00:00Z`,
    );
    const after = await wallet(maker);
    expect(after.past_orders).to.deep.equal([
      {
        blockNum: 77,
        time: "2026-11-23T10:00:00.000Z",
        erc20: { symbol: "DEMO", address: stack.demoTokens.erc20, amount: "3.0" },
        hash: sweepTx,
        value: { eth: "0.0005", usd: 1.5 },
        ethPrice: 3000,
      },
    ]);
    expect(strictly.open.parse((await get("/api/orders")).body).map((o) => o.maker)).to.not.include(maker);
    expect(strictly.all.parse((await get("/api/all-orders")).body).map((o) => o.maker)).to.include(maker);
    // With no open order left, the token the maker still holds is sweepable again.
    expect(item(after, "DEMO").token.status).to.equal("sweepable");
  });

  it("pages the order lists with limit and offset, linking the next page", async () => {
    for (let i = 0; i < 3; i++) {
      const maker = Wallet.createRandom().address;
      await admin(`dust orders create localhost ${maker} ${stack.demoTokens.erc20} 1 --tx 0x${String(i).repeat(64)}`);
    }
    const first = await get("/api/all-orders?limit=2");
    expect(first.body).to.have.length(2);
    expect(first.headers.get("link")).to.equal('</api/all-orders?limit=2&offset=2>; rel="next"');
    const second = await get("/api/all-orders?limit=2&offset=2");
    expect(second.body.map((o: Json) => o.tx)).to.not.include.members(first.body.map((o: Json) => o.tx));
    const all = await get("/api/all-orders?limit=1000");
    expect(all.headers.get("link")).to.equal(null);
  });

  it("refuses bad input with 400 problems", async () => {
    const cases: [string, string][] = [
      ["/api/0x123", "INVALID_REQUEST"],
      ["/api/not-an-address", "INVALID_REQUEST"],
      [`/api/${Wallet.createRandom().address}?chain=nowhere`, "UNKNOWN_CHAIN"],
      [`/api/${Wallet.createRandom().address}?chain=matic`, "CHAIN_NOT_AVAILABLE"],
      ["/api/orders?limit=0", "INVALID_REQUEST"],
      ["/api/all-orders?limit=abc", "INVALID_REQUEST"],
      ["/api/all-orders?offset=-1", "INVALID_REQUEST"],
    ];
    for (const [route, code] of cases) {
      const res = await fetch(`${stack.apiUrl}${route}`);
      expect([res.status, ((await res.json()) as Json).code], route).to.deep.equal([400, code]);
      expect(res.headers.get("content-type")).to.match(/^application\/problem\+json/);
    }
  });
});

describe("Dust-order interface: the documented example (docs/dust.md) (e2e: run as written against the local stack)", () => {
  it("mints demo tokens to a wallet and shows them as sweepable dust", async function () {
    this.timeout(60_000);
    const readme = readFileSync(path.join(__dirname, "..", "..", "docs", "dust.md"), "utf8");
    const block = /<!-- dust-example -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "docs/dust.md's dust-example block").to.be.a("string");
    const stack = await startTestStack();
    try {
      expect(block).to.include(stack.demoTokens.erc20);
      // Asynchronously: the stack serves from this process, so blocking it would leave curl without answers.
      const run = await promisify(execFile)("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", block!], {
        env: { PATH: process.env.PATH, API: stack.apiUrl, RPC: stack.rpcUrl },
        encoding: "utf8",
        timeout: 50_000,
      });
      const info = strictly.wallet.parse(JSON.parse(run.stdout));
      expect(info.portfolio).to.have.length(1);
      expect(info.portfolio[0]).to.deep.include({ quote_rate: 0.5, sweeping_value: { usd: 20, eth: 20 / 3000 } });
      expect(info.portfolio[0]!.token).to.deep.equal({
        symbol: "DEMO",
        contract_address: stack.demoTokens.erc20,
        status: "sweepable",
      });
    } finally {
      await stack.close();
    }
  });
});
