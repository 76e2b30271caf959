import { selectDue } from "../selectDue";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { Preparation, Prepared, Relayer, WorkKinds } from "../../relaying/workKind";

/** A batch prepared ahead that waited longer than this is prepared again (fees and state have moved on). */
const PREPARED_MAX_AGE_MS = 10_000;

/**
 * Prepares a chain's next relayer transaction: the due requests selected, all of the oldest one's kind, prepared
 * by that kind; and, while one is being checked and sent, the one after it, from other wallets.
 */
export class NextPreparation {
  /** The next batch, prepared while the one before it is sent. */
  private next: Promise<Preparation> | undefined;

  constructor(
    private readonly context: OperationContext,
    private readonly kinds: WorkKinds,
    private readonly relayer: Relayer,
  ) {}

  /**
   * The next batch: the one prepared ahead if it is fresh, else one prepared now. `behind`: it is to go behind
   * pending bundles of ours, which only wallet operations may (see BuiltinBundler): a Safe request that is the
   * oldest due waits, idle, for them to be settled, rather than be overtaken for as long as bundles keep coming.
   */
  async take(behind = false): Promise<Preparation> {
    const early = this.next;
    this.next = undefined;
    const prepared = early ? await early : undefined;
    if (
      typeof prepared === "object" &&
      this.context.clock().getTime() - prepared.at < PREPARED_MAX_AGE_MS &&
      !(behind && prepared.kind.runs !== "bundle")
    ) {
      return prepared;
    }
    // "settled" ahead was work done; "idle" ahead may be out of date: either way, look again now.
    return this.prepare(undefined, behind);
  }

  /** Starts preparing the batch after `sending`, from other wallets than its own, while it is checked and sent. */
  startAfter(sending: Prepared): void {
    const next = this.prepare(new Set(sending.senders));
    // Awaited by the next take (or close); marked handled so a failure in between is not reported twice.
    next.catch(() => undefined);
    this.next = next;
  }

  /** Waits for the batch being prepared ahead, if any, so nothing writes after the worker stops. */
  async close(): Promise<void> {
    await this.next?.catch(() => undefined);
  }

  /** Selects the due requests (none of `busy`'s wallets) and has the oldest one's kind prepare them. */
  private async prepare(busy?: ReadonlySet<string>, behind = false): Promise<Preparation> {
    const at = this.context.clock().getTime();
    const due = await selectDue(this.context, this.kinds, this.context.maxOpsPerBundle, busy);
    if (due === undefined) return "idle";
    if (due.length === 0) return "settled";
    // One kind per relayer transaction, the oldest due request's: a Safe request goes alone when it is the oldest
    // due; wallet requests wait for the bundle after it.
    const kind = this.kinds.of(due[0]!);
    if (behind && kind.runs !== "bundle") return "idle";
    const ofKind = due.filter((tx) => this.kinds.of(tx) === kind);
    return kind.prepare(ofKind, { relayer: this.relayer, at, ahead: busy !== undefined });
  }
}
