import { expect } from "chai";
import { getAddress } from "ethers";
import { parseAdminArgs } from "../../../scripts/admin/args";
import { EXIT, runAdminCommand, type AdminOutput } from "../../../scripts/admin/commands";
import { openTestStore, type TestStore } from "../storage/builders";

const TOKEN = "0x00000000000000000000000000000000000000aa";
const CHECKSUMMED = getAddress(TOKEN);
const MAKER = "0x00000000000000000000000000000000000000B0";
const FEED = "0x00000000000000000000000000000000000000F0";
const HASH = `0x${"ab".repeat(32)}`;

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

describe("admin CLI: dust token lists, prices and orders", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.database.close());

  /** Parses and runs one command line against the store; returns the exit code and what it wrote. */
  const run = async (line: string) => {
    const parsed = parseAdminArgs(line.split(" "));
    if (!parsed.ok) return { code: EXIT.usage, out: "", err: parsed.error };
    const output = captureOutput();
    const code = await runAdminCommand(parsed.command, store.repos, output, store.clock.now);
    return { code, out: output.stdout.join("\n"), err: output.stderr.join("\n") };
  };

  it("lists tokens, sets table and feed prices, and creates, settles and lists orders", async () => {
    expect((await run(`dust tokens add localhost ${TOKEN} DUST --decimals 6`)).code).to.equal(EXIT.ok);
    expect(await store.repos.dust.tokens("localhost")).to.deep.equal([
      { chain: "localhost", address: CHECKSUMMED, symbol: "DUST", decimals: 6, listing: "sweepable" },
    ]);
    expect((await run(`dust price set localhost ${TOKEN} --usd 0.25`)).code).to.equal(EXIT.ok);
    expect((await run(`dust price set localhost native --feed ${FEED}`)).code).to.equal(EXIT.ok);
    const prices = await store.repos.dust.prices("localhost");
    expect(prices.map((p) => ("usd" in p ? [p.asset, p.usd] : [p.asset, p.feed]))).to.have.deep.members([
      [CHECKSUMMED, 0.25],
      ["native", FEED],
    ]);

    const created = await run(`dust orders create localhost ${MAKER} ${TOKEN} 12.5 --tx ${HASH}`);
    expect(created.code).to.equal(EXIT.ok);
    const id = /order (\S+):/.exec(created.out)![1]!;
    expect(await store.repos.dust.findOrder(id)).to.deep.include({ status: "open", amount: 12_500_000n, maker: MAKER });
    const settled = await run(`dust orders settle ${id} --tx ${HASH} --block 42 --eth 0.01 --eth-price 3000`);
    expect(settled.code).to.equal(EXIT.ok);
    expect((await store.repos.dust.findOrder(id))!.sweep).to.deep.include({
      blockNumber: 42,
      ethAmount: 10n ** 16n,
      usdValue: 30,
      ethPrice: 3000,
    });
    // A swept order stays swept.
    const again = await run(`dust orders settle ${id} --tx ${HASH} --block 43 --eth 1 --eth-price 3000`);
    expect([again.code, again.err]).to.deep.equal([EXIT.usage, `Error: order ${id} is not open`]);
    expect((await run("dust orders list")).out)
      .to.include(id)
      .and.include("swept");
  });

  it("refuses bad input with the usage exit code, and unknown orders as not found", async () => {
    const usage = [
      `dust tokens add nowhere ${TOKEN} X`,
      `dust tokens add localhost 0x12 X`,
      `dust tokens add localhost ${TOKEN} ${"X".repeat(17)}`,
      `dust tokens add localhost ${TOKEN} X --decimals 99`,
      `dust price set localhost ${TOKEN}`,
      `dust price set localhost ${TOKEN} --usd 1 --feed ${FEED}`,
      `dust price set localhost ${TOKEN} --usd -1`,
      `dust orders create localhost ${MAKER} ${TOKEN} 1 --tx 0x12`,
      `dust orders settle x --tx ${HASH} --block 1 --eth 1`,
      `apps list --usd 1`,
      "dust frob it",
    ];
    for (const line of usage) expect((await run(line)).code, line).to.equal(EXIT.usage);
    // An order needs a listed token, in no more decimals than it has.
    const unlisted = await run(`dust orders create localhost ${MAKER} ${TOKEN} 1 --tx ${HASH}`);
    expect([unlisted.code, unlisted.err]).to.deep.equal([
      EXIT.usage,
      `Error: ${CHECKSUMMED} is not listed on localhost (dust tokens add first)`,
    ]);
    await run(`dust tokens add localhost ${TOKEN} DUST --decimals 2`);
    expect((await run(`dust orders create localhost ${MAKER} ${TOKEN} 1.005 --tx ${HASH}`)).code).to.equal(EXIT.usage);
    expect((await run("dust orders cancel 00000000-0000-4000-8000-000000000000")).code).to.equal(EXIT.notFound);
  });
});
