import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { type JsonRpcProvider, Wallet, getAddress, parseEther, parseUnits, toQuantity } from "ethers";
import { LastTransferCache, lastTransfer, readPortfolio } from "../../../gateway/dust/chainReads";
import { MULTICALL3_ADDRESS, Multicall3Error, aggregate3 } from "../../../gateway/dust/multicall3";
import { installMulticall3 } from "../../../scripts/localStack/multicall3";

/** Runtime code answering every call with 32 bytes of 0xff: a "token" whose decimals cannot be a uint8. */
const ALL_ONES = `0x7f${"ff".repeat(32)}60005260206000f3`;
/** Runtime code answering every call with a single byte: shorter than any ABI word. */
const ONE_BYTE = "0x60016000f3";

async function fixture() {
  const [admin, alice, bob] = await ethers.getSigners();
  await installMulticall3(network.provider);
  const [token, otherToken, target] = await Promise.all([
    ethers.deployContract("TestToken"),
    ethers.deployContract("TestToken"),
    ethers.deployContract("TestTarget"),
  ]);
  const feed = await ethers.deployContract("TestPriceFeed", [8, parseUnits("3000", 8)]);
  const allOnes = Wallet.createRandom().address;
  const oneByte = Wallet.createRandom().address;
  await network.provider.send("hardhat_setCode", [allOnes, ALL_ONES]);
  await network.provider.send("hardhat_setCode", [oneByte, ONE_BYTE]);
  return {
    admin: admin!,
    alice: alice!,
    bob: bob!,
    token,
    otherToken,
    target,
    feed,
    allOnes,
    oneByte,
    // Hardhat's provider answers `send` like a JSON-RPC provider.
    provider: ethers.provider as unknown as JsonRpcProvider,
  };
}

/** What `promise` rejected with, or undefined if it fulfilled. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The provider, with every JSON-RPC method it is sent recorded; `failNext` makes the next request fail. */
function recording(provider: JsonRpcProvider) {
  const methods: string[] = [];
  const state = { failNext: false };
  const wrapped = {
    send: async (method: string, params: unknown[]) => {
      methods.push(method);
      if (state.failNext) {
        state.failNext = false;
        throw new Error("RPC down");
      }
      return provider.send(method, params);
    },
  } as unknown as JsonRpcProvider;
  return { provider: wrapped, methods, state };
}

describe("Dust chain reads", () => {
  describe("aggregate3", () => {
    it("runs the calls at the canonical Multicall3 and answers them in order", async () => {
      const { provider, token, alice } = await loadFixture(fixture);
      await token.mint(alice.address, 5n);
      const results = await aggregate3(provider, [
        {
          target: await token.getAddress(),
          allowFailure: true,
          callData: token.interface.encodeFunctionData("decimals"),
        },
        {
          target: await token.getAddress(),
          allowFailure: true,
          callData: token.interface.encodeFunctionData("balanceOf", [alice.address]),
        },
        { target: await token.getAddress(), allowFailure: true, callData: "0xdeadbeef" },
      ]);
      expect(results.map((r) => r.success)).to.deep.equal([true, true, false]);
      expect(BigInt(results[0]!.returnData)).to.equal(18n);
      expect(BigInt(results[1]!.returnData)).to.equal(5n);
    });

    it("says so when no Multicall3 answers at the address", async () => {
      const { provider } = await loadFixture(fixture);
      const nowhere = Wallet.createRandom().address;
      const error = await rejection(aggregate3(provider, [], nowhere));
      expect(error).to.be.instanceOf(Multicall3Error).and.have.property("message").that.contains(nowhere);
    });
  });

  describe("readPortfolio", () => {
    it("reads the native balance, token balances and decimals and feed answers in one eth_call", async () => {
      const { provider, token, otherToken, feed, alice } = await loadFixture(fixture);
      const wallet = Wallet.createRandom().address;
      await network.provider.send("hardhat_setBalance", [wallet, toQuantity(parseEther("1.25"))]);
      await token.mint(wallet, parseEther("7"));
      await token.mint(alice.address, parseEther("1")); // someone else's balance is not the wallet's
      const rpc = recording(provider);
      // Lowercase in, checksummed out: callers key the maps by getAddress.
      const tokenAddress = (await token.getAddress()).toLowerCase();
      const reads = await readPortfolio(
        rpc.provider,
        wallet.toLowerCase(),
        [tokenAddress, await otherToken.getAddress()],
        [await feed.getAddress()],
      );
      expect(rpc.methods).to.deep.equal(["eth_call"]);
      expect(reads.nativeBalance).to.equal(parseEther("1.25"));
      expect(reads.tokens.get(getAddress(tokenAddress))).to.deep.equal({ balance: parseEther("7"), decimals: 18 });
      expect(reads.tokens.get(await otherToken.getAddress())).to.deep.equal({ balance: 0n, decimals: 18 });
      const [, answer, , updatedAt] = await feed.latestRoundData();
      expect(reads.feeds.get(await feed.getAddress())).to.deep.equal({
        answer,
        decimals: 8,
        updatedAt: Number(updatedAt),
      });
    });

    it("follows setAnswer, negative answers included", async () => {
      const { provider, feed, alice } = await loadFixture(fixture);
      const at = (await time.latest()) + 600;
      await time.setNextBlockTimestamp(at);
      await feed.setAnswer(parseUnits("2412.5", 8));
      const feedAddress = await feed.getAddress();
      let reads = await readPortfolio(provider, alice.address, [], [feedAddress]);
      expect(reads.feeds.get(feedAddress)).to.deep.equal({
        answer: parseUnits("2412.5", 8),
        decimals: 8,
        updatedAt: at,
      });
      await feed.setAnswer(-5n);
      reads = await readPortfolio(provider, alice.address, [], [feedAddress]);
      expect(reads.feeds.get(feedAddress)?.answer).to.equal(-5n);
    });

    it("makes a non-token or garbage-answering address undefined, and still reads the rest", async () => {
      const { provider, token, target, feed, allOnes, oneByte, alice } = await loadFixture(fixture);
      await token.mint(alice.address, 3n);
      const eoa = Wallet.createRandom().address;
      const tokenAddress = await token.getAddress();
      const targetAddress = await target.getAddress();
      const feedAddress = await feed.getAddress();
      const reads = await readPortfolio(
        provider,
        alice.address,
        [eoa, targetAddress, allOnes, oneByte, feedAddress, tokenAddress],
        [eoa, tokenAddress, oneByte, feedAddress],
      );
      // No code, no such function, decimals out of uint8, a one-byte answer, a feed read as a token.
      for (const address of [eoa, targetAddress, allOnes, oneByte, feedAddress]) {
        expect(reads.tokens.has(address), address).to.be.true;
        expect(reads.tokens.get(address), address).to.be.undefined;
      }
      expect(reads.tokens.get(tokenAddress)).to.deep.equal({ balance: 3n, decimals: 18 });
      for (const address of [eoa, tokenAddress, oneByte]) expect(reads.feeds.get(address), address).to.be.undefined;
      expect(reads.feeds.get(feedAddress)?.answer).to.equal(parseUnits("3000", 8));
    });

    it("fails when the multicall address has no Multicall3, rather than report an empty portfolio", async () => {
      const { provider, alice } = await loadFixture(fixture);
      const nowhere = Wallet.createRandom().address;
      expect(await rejection(readPortfolio(provider, alice.address, [], [], nowhere))).to.be.instanceOf(
        Multicall3Error,
      );
      expect(MULTICALL3_ADDRESS).to.equal(getAddress(MULTICALL3_ADDRESS));
    });
  });

  describe("lastTransfer", () => {
    it("finds the latest Transfer into or out of the wallet, with its block's time", async () => {
      const { provider, token, alice, bob } = await loadFixture(fixture);
      const tokenAddress = await token.getAddress();
      expect(await lastTransfer(provider, tokenAddress, alice.address, 1000)).to.be.undefined;

      const received = (await time.latest()) + 100;
      await time.setNextBlockTimestamp(received);
      await token.mint(alice.address, 10n);
      const receivedBlock = await time.latestBlock();
      expect(await lastTransfer(provider, tokenAddress, alice.address, 1000)).to.deep.equal({
        blockNumber: receivedBlock,
        timestamp: new Date(received * 1000),
      });

      const sent = received + 100;
      await time.setNextBlockTimestamp(sent);
      await token.connect(alice).transfer(bob.address, 4n);
      const sentBlock = await time.latestBlock();
      // Transfers that do not involve the wallet do not count.
      await token.mint(bob.address, 1n);
      expect(await lastTransfer(provider, tokenAddress, alice.address, 1000)).to.deep.equal({
        blockNumber: sentBlock,
        timestamp: new Date(sent * 1000),
      });
      // For bob, the later mint is the latest.
      expect((await lastTransfer(provider, tokenAddress, bob.address, 1000))?.blockNumber).to.equal(sentBlock + 1);
    });

    it("reads only the given token's transfers", async () => {
      const { provider, token, otherToken, alice } = await loadFixture(fixture);
      await token.mint(alice.address, 1n);
      expect(await lastTransfer(provider, await otherToken.getAddress(), alice.address, 1000)).to.be.undefined;
    });

    it("looks back only `lookbackBlocks` blocks", async () => {
      const { provider, token, alice } = await loadFixture(fixture);
      const tokenAddress = await token.getAddress();
      await token.mint(alice.address, 1n);
      const block = await time.latestBlock();
      await mine(50);
      expect(await lastTransfer(provider, tokenAddress, alice.address, 49)).to.be.undefined;
      expect((await lastTransfer(provider, tokenAddress, alice.address, 50))?.blockNumber).to.equal(block);
      expect(await rejection(lastTransfer(provider, tokenAddress, alice.address, -1))).to.be.instanceOf(RangeError);
    });

    it("scans with two eth_getLogs (from, to) and one block read", async () => {
      const { provider, token, alice } = await loadFixture(fixture);
      await token.mint(alice.address, 1n);
      const rpc = recording(provider);
      await lastTransfer(rpc.provider, await token.getAddress(), alice.address, 1000);
      expect(rpc.methods).to.deep.equal(["eth_blockNumber", "eth_getLogs", "eth_getLogs", "eth_getBlockByNumber"]);
    });
  });

  describe("LastTransferCache", () => {
    it("serves a repeat from the cache until the TTL passes, per chain, token and wallet", async () => {
      const { provider, token, otherToken, alice, bob } = await loadFixture(fixture);
      const tokenAddress = await token.getAddress();
      await token.mint(alice.address, 1n);
      const first = await time.latestBlock();
      const rpc = recording(provider);
      let now = new Date("2025-01-01T00:00:00Z");
      const cache = new LastTransferCache(60_000, { clock: () => now });
      const scans = () => rpc.methods.filter((m) => m === "eth_getLogs").length;

      expect((await cache.get(rpc.provider, "localhost", tokenAddress, alice.address, 1000))?.blockNumber).to.equal(
        first,
      );
      expect(scans()).to.equal(2);
      await token.mint(alice.address, 1n);
      // Within the TTL the earlier answer stands, whatever the chain did since.
      now = new Date(now.getTime() + 59_000);
      expect((await cache.get(rpc.provider, "localhost", tokenAddress, alice.address, 1000))?.blockNumber).to.equal(
        first,
      );
      expect(scans()).to.equal(2);
      // Another wallet, token or chain is another entry.
      await cache.get(rpc.provider, "localhost", tokenAddress, bob.address, 1000);
      await cache.get(rpc.provider, "localhost", await otherToken.getAddress(), alice.address, 1000);
      await cache.get(rpc.provider, "other", tokenAddress, alice.address, 1000);
      expect(scans()).to.equal(8);
      now = new Date(now.getTime() + 1_000);
      expect((await cache.get(rpc.provider, "localhost", tokenAddress, alice.address, 1000))?.blockNumber).to.equal(
        first + 1,
      );
      expect(scans()).to.equal(10);
    });

    it("shares a scan under way and forgets a failed one", async () => {
      const { provider, token, alice } = await loadFixture(fixture);
      const tokenAddress = await token.getAddress();
      await token.mint(alice.address, 1n);
      const rpc = recording(provider);
      const cache = new LastTransferCache(60_000);
      const [a, b] = await Promise.all([
        cache.get(rpc.provider, "localhost", tokenAddress, alice.address, 1000),
        cache.get(rpc.provider, "localhost", tokenAddress.toLowerCase(), alice.address.toLowerCase(), 1000),
      ]);
      expect(a).to.deep.equal(b);
      expect(rpc.methods.filter((m) => m === "eth_getLogs")).to.have.length(2);

      const other = Wallet.createRandom().address;
      rpc.state.failNext = true;
      const failed = await rejection(cache.get(rpc.provider, "localhost", tokenAddress, other, 1000));
      expect(failed).to.have.property("message", "RPC down");
      expect(await cache.get(rpc.provider, "localhost", tokenAddress, other, 1000)).to.be.undefined;
    });
  });
});
