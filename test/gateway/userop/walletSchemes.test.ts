import { expect } from "chai";
import { AbiCoder, Interface, type JsonRpcProvider, Wallet } from "ethers";
import { WalletSchemes } from "../../../gateway/userop/walletSchemes";

const CUSTODY_PAYMASTER = Wallet.createRandom().address;
const CODE = new Interface([
  "function custodyPaymaster() view returns (address)",
  "function accountId() view returns (string)",
]);
const abi = AbiCoder.defaultAbiCoder();

/** What an implementation answers: its custody paymaster (2.1) or none, and its accountId or none. */
interface Code {
  readonly custodyPaymaster?: string;
  readonly accountId?: string;
}

/**
 * A node answering eth_call for the implementations in `code`; an address it does not know has no code ("0x", as a
 * node behind on a new deployment answers). Counts the calls.
 */
function node(code: Map<string, Code>) {
  const seen = { calls: 0 };
  const provider = {
    send: async (method: string, params: [{ to: string; data: string }]) => {
      if (method !== "eth_call") throw new Error(`unexpected ${method}`);
      seen.calls += 1;
      const { to, data } = params[0];
      const at = code.get(to.toLowerCase());
      if (!at) return "0x";
      if (data === CODE.getFunction("custodyPaymaster")!.selector) {
        if (!at.custodyPaymaster) throw Object.assign(new Error("execution reverted"), { code: "CALL_EXCEPTION" });
        return abi.encode(["address"], [at.custodyPaymaster]);
      }
      if (!at.accountId) throw Object.assign(new Error("execution reverted"), { code: "CALL_EXCEPTION" });
      return abi.encode(["string"], [at.accountId]);
    },
  } as unknown as JsonRpcProvider;
  return { provider, seen };
}

describe("WalletSchemes: how each wallet's operation is authorized, asked of its code", () => {
  const schemesOn = (provider: JsonRpcProvider) =>
    new WalletSchemes({ provider, custodyPaymaster: CUSTODY_PAYMASTER, clock: () => new Date() });

  it("code naming our CustodyPaymaster is custodyRoot, code whose accountId is 2.0.0's is ownerSignature; each asked once", async () => {
    const [v21, v20] = [Wallet.createRandom().address.toLowerCase(), Wallet.createRandom().address.toLowerCase()];
    const { provider, seen } = node(
      new Map([
        [v21, { custodyPaymaster: CUSTODY_PAYMASTER }],
        [v20, { accountId: "idwallet.kernel.2.0.0" }],
      ]),
    );
    const schemes = schemesOn(provider);
    expect(await schemes.ofImplementation(v21)).to.equal("custodyRoot");
    expect(await schemes.ofImplementation(v20)).to.equal("ownerSignature");
    const calls = seen.calls;
    expect([await schemes.ofImplementation(v21), await schemes.ofImplementation(v20)]).to.deep.equal([
      "custodyRoot",
      "ownerSignature",
    ]);
    expect(seen.calls).to.equal(calls);
  });

  it("a node behind (no code at the implementation yet) is tried again, never remembered as 2.0.0's", async () => {
    const code = new Map<string, Code>();
    const { provider } = node(code);
    const schemes = schemesOn(provider);
    const fresh = Wallet.createRandom().address.toLowerCase();
    const first = await schemes.ofImplementation(fresh);
    expect(first).to.deep.include({ code: "WALLET_NOT_CUSTODIAL", action: "retry" });
    code.set(fresh, { custodyPaymaster: CUSTODY_PAYMASTER });
    expect(await schemes.ofImplementation(fresh)).to.equal("custodyRoot");
  });

  it("code naming another custody paymaster is refused for good; code with no known accountId is never guessed", async () => {
    const [other, foreign] = [Wallet.createRandom().address.toLowerCase(), Wallet.createRandom().address.toLowerCase()];
    const { provider } = node(
      new Map([
        [other, { custodyPaymaster: Wallet.createRandom().address }],
        [foreign, { accountId: "someone.else.1.0.0" }],
      ]),
    );
    const schemes = schemesOn(provider);
    expect(await schemes.ofImplementation(other)).to.deep.include({ code: "WALLET_NOT_CUSTODIAL", action: "fail" });
    expect(await schemes.ofImplementation(foreign)).to.deep.include({ code: "WALLET_NOT_CUSTODIAL", action: "retry" });
  });
});
