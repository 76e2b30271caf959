import { expect } from "chai";
import { mempoolConflict } from "../../../gateway/bundler/mempoolConflict";

const mine = "0x5f54Fd79FF0a5B929dB8989da2e981e64df41D33";
const other = "0xB8614d91c279CD48901FbC346065A5c7D8aF7210";
const slot = "0x63a81ca6a732d95017419e12c9019b5bc15e8c6140f52bbda4339d206101bc00";
const inFlight = (...addresses: string[]) => new Set(addresses.map((a) => a.toLowerCase()));

describe("A bundler's refusal that blames another of our wallets in its mempool (ERC-7562 STO-041)", () => {
  it("is a conflict when it names another wallet whose operation the bundler holds, in any case", () => {
    const refusal = { code: -32502, message: `unstaked account accessed ${other.toLowerCase()} slot ${slot}` };
    expect(mempoolConflict(refusal, mine, inFlight(other, mine))).to.match(new RegExp(other.toLowerCase()));
  });

  it("is the operation's own refusal when the wallet it names is not in flight: a stranger's or a settled one", () => {
    const refusal = { code: -32502, message: `unstaked account accessed ${other} slot ${slot}` };
    expect(mempoolConflict(refusal, mine, inFlight(mine))).to.equal(undefined);
  });

  it("is the operation's own refusal when it names only the operation's own wallet", () => {
    expect(
      mempoolConflict({ code: -32507, message: `AA24 signature error for ${mine}` }, mine, inFlight(mine, other)),
    ).to.equal(undefined);
  });

  it("is the operation's own refusal when it names no address (an EntryPoint reason)", () => {
    expect(mempoolConflict({ code: -32500, message: "AA21 didn't pay prefund" }, mine, inFlight(other))).to.equal(
      undefined,
    );
  });

  it("does not read an address out of a longer hex string (a hash or a slot)", () => {
    const refusal = { code: -32502, message: `slot 0x${other.slice(2).toLowerCase()}000000000000000000000000 refused` };
    expect(mempoolConflict(refusal, mine, inFlight(other))).to.equal(undefined);
  });

  it("is the operation's own refusal when another kind of refusal names one of our wallets: a sender's revert data echoed back", () => {
    const echoed = { code: -32521, message: `execution reverted: pay ${other}` };
    expect(mempoolConflict(echoed, mine, inFlight(other))).to.equal(undefined);
  });
});
