import { Interface, type JsonRpcProvider, getAddress } from "ethers";
import type { OperationFailure } from "./failureCodes";

/**
 * How a custodial wallet's operation is authorized, by the code it runs:
 * - `ownerSignature` (code 2.0.0): the SponsorPaymaster's signature, then the wallet key's over the userOpHash;
 * - `custodyRoot` (code 2.1 and later): no wallet signature; the CustodyPaymaster's proof under one root signature
 *   per bundle (userop/custodyRoot.ts).
 */
export type SigningScheme = "ownerSignature" | "custodyRoot";

const CODE = new Interface([
  "function custodyPaymaster() view returns (address)",
  "function implementation() view returns (address)",
  "function accountId() view returns (string)",
]);
/** The accountId of code that authorizes the 2.0.0 way (the kernel's first code and code built on it; the legacy type). */
const OWNER_SIGNATURE_CODE = /^idwallet\.(kernel\.2\.0\.|base\.)/;
/** How long the creator's current implementation is trusted before it is read again (the admin may change it). */
const CREATOR_TTL_MS = 60_000;

/** What the scheme look-ups read. */
export interface WalletSchemesDeps {
  readonly provider: JsonRpcProvider;
  /** The CustodyPaymaster this service signs for (CONTRACT_CUSTODY_PAYMASTER); unset: every wallet is ownerSignature. */
  readonly custodyPaymaster?: string;
  /** The KernelAccountCreator (CONTRACT_KERNEL_CREATOR): new kernel wallets are created through it, on its code. */
  readonly creator?: string;
  /** The factories' first implementations (2.0.0 code), known without asking. */
  readonly firstImplementations?: readonly string[];
  readonly clock: () => Date;
}

/**
 * The signing scheme of each implementation, asked of the implementation once (its code is frozen, so the answer
 * is too): code naming our CustodyPaymaster is `custodyRoot`; code without the view (2.0.0) is `ownerSignature`; code
 * naming another custody paymaster is refused, never guessed (docs/road-after-the-freeze.md, "Serving both").
 * WalletCustody decides first whether the operator chose the code at all.
 */
export class WalletSchemes {
  private readonly byImplementation = new Map<string, SigningScheme | OperationFailure>();
  private creatorCode: { readonly implementation: string; readonly at: number } | undefined;

  constructor(private readonly deps: WalletSchemesDeps) {}

  /** Whether new wallets are created through the creator (kernel wallets only; the legacy type keeps its factory). */
  get creator(): string | undefined {
    return this.deps.custodyPaymaster === undefined ? undefined : this.deps.creator;
  }

  /**
   * The scheme of a wallet running `implementation` (lower-case), or why none can be used. Known code only: a
   * factory's first implementation, code naming our CustodyPaymaster, code whose accountId is 2.0.0's; an answer of no
   * code (a node behind on a new deployment) is retried, never remembered as either. Node errors throw.
   */
  async ofImplementation(implementation: string): Promise<SigningScheme | OperationFailure> {
    const custodyPaymaster = this.deps.custodyPaymaster;
    if (custodyPaymaster === undefined) return "ownerSignature";
    if (this.deps.firstImplementations?.some((first) => first.toLowerCase() === implementation)) {
      return "ownerSignature";
    }
    const known = this.byImplementation.get(implementation);
    if (known !== undefined) return known;
    const paymaster = await this.call(implementation, "custodyPaymaster");
    let scheme: SigningScheme | OperationFailure;
    if (paymaster !== undefined) {
      scheme =
        paymaster.toLowerCase() === custodyPaymaster.toLowerCase()
          ? "custodyRoot"
          : otherPaymaster(implementation, paymaster);
    } else {
      const id = await this.call(implementation, "accountId");
      if (id === undefined || !OWNER_SIGNATURE_CODE.test(id)) return unknownCode(implementation);
      scheme = "ownerSignature";
    }
    this.byImplementation.set(implementation, scheme);
    return scheme;
  }

  /** The scheme of a kernel wallet not deployed yet: its creator's current code, or the factory's first (2.0.0). */
  async ofNewKernelWallet(): Promise<SigningScheme | OperationFailure> {
    const creator = this.creator;
    if (creator === undefined) return "ownerSignature";
    const now = this.deps.clock().getTime();
    if (!this.creatorCode || now - this.creatorCode.at >= CREATOR_TTL_MS) {
      const implementation = await this.call(creator, "implementation");
      if (implementation === undefined) throw new Error(`the wallet creator ${creator} answers no implementation`);
      this.creatorCode = { implementation: implementation.toLowerCase(), at: now };
    }
    return this.ofImplementation(this.creatorCode.implementation);
  }

  /** A view of `target` (an address, or accountId's text), or undefined when it reverts or there is no code. */
  private async call(
    target: string,
    view: "custodyPaymaster" | "implementation" | "accountId",
  ): Promise<string | undefined> {
    let data: string;
    try {
      data = await this.deps.provider.send("eth_call", [{ to: target, data: CODE.encodeFunctionData(view) }, "latest"]);
    } catch (error) {
      if (isRevert(error)) return undefined;
      throw error;
    }
    if (data === "0x") return undefined;
    const value = String(CODE.decodeFunctionResult(view, data)[0]);
    return view === "accountId" ? value : getAddress(value);
  }
}

/** A revert of the call (as opposed to a node that did not answer). */
const isRevert = (error: unknown): boolean => {
  const text = `${(error as { code?: unknown }).code ?? ""} ${(error as Error).message ?? ""}`;
  return /CALL_EXCEPTION|revert/i.test(text);
};

const otherPaymaster = (implementation: string, paymaster: string): OperationFailure => ({
  code: "WALLET_NOT_CUSTODIAL",
  action: "fail",
  message: `the wallet runs ${getAddress(implementation)}, whose custody paymaster ${paymaster} is not this service's (CONTRACT_CUSTODY_PAYMASTER)`,
});

/** Code that names no custody paymaster and no accountId we know, or no code at all (a node behind): tried again. */
const unknownCode = (implementation: string): OperationFailure => ({
  code: "WALLET_NOT_CUSTODIAL",
  action: "retry",
  message: `the wallet runs ${getAddress(implementation)}, whose way of authorizing operations the service cannot tell (no custodyPaymaster, no known accountId); tried again`,
});
