import { Interface, type JsonRpcProvider, getAddress, zeroPadValue } from "ethers";
import { type AccountType, factoryImplementation } from "../identity/walletAddress";
import type { OperationFailure } from "./failureCodes";
import { WALLET_SLOTS_CODE, WALLET_SLOT_READER_ADDRESS, WALLET_SLOT_READER_CODE } from "./walletSlotReaderCode";

const READ = new Interface(["function read(address[] wallets) view returns (tuple(bytes32, bytes32)[])"]);
const READ_SELECTOR = READ.getFunction("read")!.selector;
/** OwnerAccount's event when its admin moves wallets to new code: the implementations the operator chose. */
const WALLETS_UPGRADED = new Interface([
  "event WalletsUpgraded(address indexed factory, address indexed implementation, uint256 count)",
]).getEvent("WalletsUpgraded")!.topicHash;
/**
 * How long an implementation the owner account never moved wallets to is not asked about again: the admin may move
 * wallets to it later (then it is chosen from then on), and a user's code costs one log query a minute at most.
 */
const UNKNOWN_CODE_TTL_MS = 60_000;
/** Remembered unknown implementations past which the expired ones are forgotten. */
const UNKNOWN_CODE_KEPT = 1_000;

/** What the custody check reads the chain with. */
export interface CustodyDeps {
  readonly provider: JsonRpcProvider;
  /** The operator's OwnerAccount: the custodian every wallet starts with. */
  readonly ownerAccount: string;
  readonly factories: Readonly<Record<AccountType, string>>;
  /** Implementations the operator names as chosen (CONTRACT_WALLET_IMPLEMENTATIONS): no log query for them. */
  readonly chosenImplementations?: readonly string[];
  readonly clock: () => Date;
}

/** Why a deployed wallet is not built for: held by another key, or running code the operator never chose. */
const handedOver = (owner: string): OperationFailure => ({
  code: "WALLET_NOT_CUSTODIAL",
  action: "fail",
  message: `the wallet is owned by ${owner}, not by the operator's owner account: this service builds only for wallets it holds`,
});
const foreignCode = (implementation: string): OperationFailure => ({
  code: "WALLET_NOT_CUSTODIAL",
  action: "fail",
  message: `the wallet runs ${implementation}, code the operator's owner account never moved wallets to: this service builds only for wallets it holds`,
});
/** The node refused the look-up of the owner account's upgrades: charged an attempt, as a node's trouble may pass. */
const lookupFailed = (implementation: string): OperationFailure => ({
  code: "WALLET_NOT_CUSTODIAL",
  action: "retry",
  message: `whether the owner account moved wallets to ${implementation} could not be looked up (the node refused the log query)`,
});

/**
 * Which wallets the operator's custodian holds: the only ones the service builds operations for. A wallet handed to
 * its user's key is governed by that key (docs/contracts.md, "Who owns a wallet"), which may move it to code whose
 * validation passes every eth_call and fails on chain; a bundle carrying it would revert at the relayer's cost, and a
 * reverted bundle charges none of its operations. So a wallet is built for only if it has no code yet (our factory
 * creates it, owned by the custodian) or both (1) its owner slot is empty (the custodian; OwnedAccount) and (2) its
 * ERC-1967 implementation is one the operator chose: a factory's first implementation, one the operator names
 * (CONTRACT_WALLET_IMPLEMENTATIONS), or one the owner account moved wallets to (its WalletsUpgraded events: its cold admin,
 * or the KernelAccountCreator holding the admin role, which moves wallets only to the code the cold key chose). Both are read from storage, not asked of the
 * wallet, whose code may be anyone's: code of the user's that cleared the owner slot still fails (2), and a wallet
 * whose slots pass runs the operator's code with the custodian as owner, so it is the custodian's again.
 */
export class WalletCustody {
  /** Lower-case implementations the operator chose. */
  private readonly chosen = new Set<string>();
  /** Implementations the owner account never moved wallets to, and when that was looked up. */
  private readonly unknown = new Map<string, number>();

  constructor(private readonly deps: CustodyDeps) {
    for (const factory of Object.values(deps.factories)) this.chosen.add(factoryImplementation(factory).toLowerCase());
    for (const implementation of deps.chosenImplementations ?? []) this.chosen.add(implementation.toLowerCase());
  }

  /**
   * Why each of `wallets` (deployed ones; the rest are ignored by the caller) is not the custodian's, by lower-case
   * address; absent when it is. One eth_call for all of them (the reader and the slot code placed by state override),
   * and a log query per implementation not met before. A node error throws: the node's trouble charges nobody.
   */
  async notCustodial(wallets: readonly string[]): Promise<Map<string, OperationFailure>> {
    return (await this.inspect(wallets)).refused;
  }

  /**
   * notCustodial, and the implementation each wallet runs (lower-case, by lower-case address), read in the same call:
   * the code decides how an operation is authorized (WalletSchemes).
   */
  async inspect(
    wallets: readonly string[],
  ): Promise<{ refused: Map<string, OperationFailure>; implementations: Map<string, string> }> {
    const refused = new Map<string, OperationFailure>();
    const implementations = new Map<string, string>();
    const distinct = [...new Set(wallets.map((w) => w.toLowerCase()))];
    if (distinct.length === 0) return { refused, implementations };
    const slots = await this.readSlots(distinct);
    const custodian = this.deps.ownerAccount.toLowerCase();
    const pending: [string, string][] = [];
    slots.forEach(([owner, implementation], i) => {
      const wallet = distinct[i]!;
      implementations.set(wallet, implementation);
      if (owner !== ZERO_ADDRESS && owner !== custodian) refused.set(wallet, handedOver(getAddress(owner)));
      else if (!this.chosen.has(implementation)) pending.push([wallet, implementation]);
    });
    for (const [wallet, implementation] of pending) {
      const verdict = await this.lookUp(implementation);
      if (verdict !== "chosen") refused.set(wallet, verdict);
    }
    return { refused, implementations };
  }

  /** Each wallet's owner and implementation slots, as lower-case addresses, in order. */
  private async readSlots(wallets: readonly string[]): Promise<[string, string][]> {
    const overrides: Record<string, { code: string }> = {
      [WALLET_SLOT_READER_ADDRESS]: { code: WALLET_SLOT_READER_CODE },
    };
    for (const wallet of wallets) overrides[wallet] = { code: WALLET_SLOTS_CODE };
    // read(address[]): the array's offset, its length, the addresses; the answer: offset, length, two words each.
    const data =
      READ_SELECTOR +
      word(32n) +
      word(BigInt(wallets.length)) +
      wallets.map((w) => `000000000000000000000000${w.slice(2)}`).join("");
    const answer = (await this.deps.provider.send("eth_call", [
      { to: WALLET_SLOT_READER_ADDRESS, data },
      "latest",
      overrides,
    ])) as string;
    const lower = answer.toLowerCase();
    const at = (n: number) => `0x${lower.slice(2 + n * 64 + 24, 2 + (n + 1) * 64)}`;
    if (lower.length !== 2 + (2 + 2 * wallets.length) * 64) throw new Error(`unexpected slot reader answer: ${answer}`);
    return wallets.map((_, i) => [at(2 + 2 * i), at(3 + 2 * i)]);
  }

  /** Whether the owner account moved wallets to `implementation` (cached: it cannot be undone). */
  private async lookUp(implementation: string): Promise<"chosen" | OperationFailure> {
    const now = this.deps.clock().getTime();
    const seen = this.unknown.get(implementation);
    if (seen !== undefined && now - seen < UNKNOWN_CODE_TTL_MS) return foreignCode(getAddress(implementation));
    let logs: unknown[];
    try {
      logs = await this.deps.provider.send("eth_getLogs", [
        {
          address: this.deps.ownerAccount,
          topics: [WALLETS_UPGRADED, null, zeroPadValue(implementation, 32)],
          fromBlock: "0x0",
          toBlock: "latest",
        },
      ]);
    } catch {
      return lookupFailed(getAddress(implementation));
    }
    if (logs.length === 0) {
      if (this.unknown.size >= UNKNOWN_CODE_KEPT) {
        for (const [code, at] of this.unknown) if (now - at >= UNKNOWN_CODE_TTL_MS) this.unknown.delete(code);
      }
      this.unknown.set(implementation, now);
      return foreignCode(getAddress(implementation));
    }
    this.chosen.add(implementation);
    this.unknown.delete(implementation);
    return "chosen";
  }
}

const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
const word = (n: bigint): string => n.toString(16).padStart(64, "0");
