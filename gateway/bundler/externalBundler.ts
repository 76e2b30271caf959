import { RequestClosedError } from "../transactions/transactionsRepository";
import { z } from "zod";
import type { BuiltUserOp } from "../transactions/builtOp";
import type { TxOutcome } from "../transactions/txOutcome";
import type { WalletTxRecord } from "../transactions/txRecord";
import { type OperationFailure, failureOfOperation } from "../userop/failureCodes";
import { buildUserOperations } from "../userop/userOpBuilder";
import { type UnsealedUserOp, sealCustodyOps } from "../userop/custodySealing";
import { planBuilds } from "../userop/bundling/buildRequests";
import { toRpcUserOperation } from "../userop/rpcUserOperation";
import { currentFees } from "../chains/fees";
import { includedOutcome, operationEvents } from "../userop/bundling/operationEvents";
import { mapLimit } from "../userop/mapLimit";
import { selectDue } from "./selectDue";
import { outcomeOfFailure } from "../userop/bundling/operationOutcomes";
import type { OperationContext } from "../userop/bundling/operationContext";
import type { WorkKinds } from "../relaying/workKind";
import { createWorkKinds } from "./workKinds";
import { type BundlerReply, BundlerRpc, type RpcErrorAnswer } from "./bundlerRpc";
import { outcomeOfUntakenSend } from "./untakenSend";
import { mempoolConflict } from "./mempoolConflict";

/** Where the chain's ERC-4337 bundler is. */
export interface ExternalBundlerSettings {
  readonly url: string;
  readonly timeoutMs: number;
  /** An operation without a receipt after this long is checked on chain and sent again. */
  readonly resendAfterMs: number;
  /**
   * At most this many of our operations held by the bundler at once (BUNDLER_MAX_PENDING_<CHAIN>); none: no limit. For
   * a bundler that cannot hold several operations of one paymaster: alto 0.0.18 in safe mode validates each on top of
   * the others under its paymaster and blames it for their storage, refusing it or dropping it from its mempool.
   */
  readonly maxPending?: number;
}

/** eth_getUserOperationReceipt's answer (ERC-4337), the field used: the transaction that carried the operation. */
const UserOperationReceipt = z.object({ receipt: z.object({ transactionHash: z.string() }) });

/** A chain node's eth_getTransactionReceipt answer, the fields used. */
interface RpcReceipt {
  blockNumber: string;
  logs: { address: string; topics: string[]; data: string; transactionHash: string; blockNumber: string }[];
}

const CONCURRENCY = 8;

/**
 * Submits a chain's operations to an external ERC-4337 bundler (eth_sendUserOperation) and follows them with
 * eth_getUserOperationReceipt. Each operation is recorded as submitted before it is sent; one that never shows
 * a receipt is checked on chain by its nonce key before it is built and sent again, so it executes at most once.
 * Only a refusal the bundler answered ends a request as failed at once; a send it left without a hash (an HTTP error,
 * silence, a closed connection) is sent again after the retry delay, and out of sends the request is closed once no
 * build of it can run (outcomeOfUntakenSend): never sent for ever.
 */
export class ExternalBundler {
  private readonly bundler: BundlerRpc;
  private readonly kinds: WorkKinds;
  /** Why the bundler's last call went unanswered, while it goes on so: logged when that starts and when it ends. */
  private outage: string | undefined;

  constructor(
    private readonly context: OperationContext,
    private readonly settings: ExternalBundlerSettings,
  ) {
    this.bundler = new BundlerRpc(settings.url, settings.timeoutMs);
    this.kinds = createWorkKinds(context);
  }

  async tick(): Promise<boolean> {
    const { settled, inFlight } = await this.track();
    const sent = await this.sendDue(inFlight);
    return settled || sent;
  }

  /** Follows the submitted operations; says whether any settled, and the wallets whose operations the bundler holds. */
  private async track(): Promise<{ settled: boolean; inFlight: Set<string> }> {
    // Requests of a kind only the built-in relayer sends (a chain switched to an external bundler leaves them be).
    const submitted = (await this.context.repository.submitted(this.context.chain.name)).flatMap((tx) => {
      const carried = this.kinds.of(tx).withExternalBundler(tx);
      return typeof carried === "object" && "userOperation" in carried ? [carried.userOperation] : [];
    });
    // A receipt call the bundler leaves unanswered spares it the others of this step, which would wait as long each:
    // they are looked up at the next step, and meanwhile an operation long without one is checked on chain.
    const step = { unanswered: false };
    const settled = await mapLimit(submitted, CONCURRENCY, (tx) => this.follow(tx, step));
    const inFlight = new Set(submitted.filter((_, i) => !settled[i]).map((tx) => tx.sender.toLowerCase()));
    return { settled: settled.some(Boolean), inFlight };
  }

  /**
   * Settles a submitted request once its operation is on chain and confirmed. The bundler only says which
   * transaction carried it; what the operation did is read from that transaction's receipt on the chain's own
   * node (the EntryPoint's events), as the built-in bundler does, rather than taken from a third party's
   * `success` / `reason`, whose form varies between bundlers. Without a receipt for too long, the chain is asked
   * whether the request's nonce key was used; if not, it is built again. A bundler that does not answer holds
   * nothing up: that check is the chain's own node's.
   */
  private async follow(tx: WalletTxRecord, step: { unanswered: boolean }): Promise<boolean> {
    const transactionHash = step.unanswered ? undefined : await this.carrierOf(tx.userOpHash!, step);
    if (transactionHash) {
      const mined = await this.minedOutcome(tx, transactionHash);
      if (mined === "unconfirmed") return false;
      if (mined) {
        await this.context.repository.settle(tx.id, mined);
        return true;
      }
      // Not (or no longer) on this chain's node as the bundler says: the nonce-key check below decides.
    }
    if (this.context.clock().getTime() - Date.parse(tx.updatedAt) < this.settings.resendAfterMs) return false;
    await this.context.repository.settle(tx.id, await this.kinds.of(tx).outcomeWhenMissing(tx, false));
    return true;
  }

  /** The transaction that carried the operation, as the bundler says; undefined if it names none or did not answer. */
  private async carrierOf(userOpHash: string, step: { unanswered: boolean }): Promise<string | undefined> {
    const reply = this.noted(await this.bundler.call("eth_getUserOperationReceipt", [userOpHash]));
    if ("unanswered" in reply) step.unanswered = true;
    const receipt = "result" in reply ? UserOperationReceipt.safeParse(reply.result) : undefined;
    return receipt?.success ? receipt.data.receipt.transactionHash : undefined;
  }

  /** The outcome of the request's operation in a mined transaction, "unconfirmed" while too few blocks are on top. */
  private async minedOutcome(
    tx: WalletTxRecord,
    transactionHash: string,
  ): Promise<TxOutcome | "unconfirmed" | undefined> {
    const provider = this.context.chain.provider;
    const receipt: RpcReceipt | null = await provider.send("eth_getTransactionReceipt", [transactionHash]);
    if (!receipt) return undefined;
    const logs = receipt.logs.map((log) => ({ ...log, blockNumber: Number(log.blockNumber) }));
    const event = operationEvents(logs, this.context.entryPoint).get(tx.userOpHash!.toLowerCase());
    if (!event) return undefined;
    const latest = Number(await provider.send("eth_blockNumber", []));
    if (latest - Number(receipt.blockNumber) + 1 < this.context.confirmations) return "unconfirmed";
    return includedOutcome(event);
  }

  /** Builds and sends the due requests; `inFlight`: wallets whose operations the bundler holds from earlier steps. */
  private async sendDue(inFlight: Set<string>): Promise<boolean> {
    const { repository, chain } = this.context;
    const { maxPending } = this.settings;
    const room = maxPending === undefined ? this.context.maxOpsPerBundle : maxPending - inFlight.size;
    if (room <= 0) return false;
    const due = await selectDue(this.context, this.kinds, Math.min(room, this.context.maxOpsPerBundle));
    if (due === undefined) return false;
    if (due.length === 0) return true;
    const fees = await currentFees(chain.provider);
    const txs: WalletTxRecord[] = [];
    for (const request of due) {
      const carried = this.kinds.of(request).withExternalBundler(request);
      if (carried === "wait") continue;
      if ("userOperation" in carried) txs.push(carried.userOperation);
      else await repository.settle(request.id, carried);
    }
    const deployed = new Set<string>();
    await mapLimit([...new Set(txs.map((tx) => tx.sender))], CONCURRENCY, async (sender) => {
      if ((await chain.provider.send("eth_getCode", [sender, "latest"])) !== "0x") deployed.add(sender);
    });
    // As for the built-in bundler: operations are built only for wallets the custodian holds (WalletCustody), so
    // that no bundler carrying our paymaster's sponsorship is made to run a handed-over wallet's validation.
    const { requests, refused } = await planBuilds(this.context, txs, deployed);
    for (const { tx, failure } of refused)
      await repository.settle(tx.id, await outcomeOfFailure(this.context, tx, failure));
    const results = await buildUserOperations(requests, fees, this.context.builder);
    const ready: { tx: WalletTxRecord; built: BuiltUserOp }[] = [];
    const unsealed: UnsealedUserOp[] = [];
    for (const [i, result] of results.entries()) {
      const tx = requests[i]!.tx;
      if ("failure" in result) await repository.settle(tx.id, await outcomeOfFailure(this.context, tx, result.failure));
      else if ("built" in result) ready.push({ tx, built: result.built });
      else unsealed.push(result.unsealed);
    }
    // One custody signature for every custodial 2.1 operation of this step; each goes to the bundler alone, with its proof.
    for (const built of await sealCustodyOps(unsealed, this.context.builder)) {
      ready.push({ tx: requests.find((r) => r.tx.id === built.txId)!.tx, built });
    }
    for (const { tx } of ready) inFlight.add(tx.sender.toLowerCase());
    await mapLimit(ready, CONCURRENCY, async ({ tx, built }) => {
      try {
        await repository.markSubmitted(built);
      } catch (error) {
        // An operator cancelled it while it was built: nothing was recorded, so it is not sent; the others go on.
        if (!(error instanceof RequestClosedError)) throw error;
        inFlight.delete(tx.sender.toLowerCase());
        this.context.logger.info({ tx: tx.id }, "request cancelled while it was built; not sent");
        return;
      }
      await this.submit(tx, built, inFlight);
    });
    return true;
  }

  /**
   * Hands a recorded operation to the bundler. A hash: it is the bundler's, followed by tracking. A refusal the bundler
   * answered settles it by its reason. Anything else (an HTTP error, no answer in time, a closed connection, an error
   * that is no refusal) means the bundler did not take it, as far as it said: sent again later, within a bound
   * (outcomeOfUntakenSend). So is a refusal that blames another of our wallets in flight (`inFlight`): a mempool
   * conflict, not this operation's fault (mempoolConflict).
   */
  private async submit(tx: WalletTxRecord, built: BuiltUserOp, inFlight: ReadonlySet<string>): Promise<void> {
    const reply = this.noted(
      await this.bundler.call("eth_sendUserOperation", [toRpcUserOperation(built.userOp), this.context.entryPoint]),
    );
    if ("result" in reply) {
      if (String(reply.result).toLowerCase() !== built.userOpHash.toLowerCase()) {
        this.context.logger.warn(
          { tx: tx.id, userOpHash: built.userOpHash, bundlerHash: String(reply.result).slice(0, 80) },
          "bundler hash differs",
        );
      }
      return;
    }
    const conflict = "error" in reply ? mempoolConflict(reply.error, tx.sender, inFlight) : undefined;
    if ("unanswered" in reply || !isRefusal(reply.error) || conflict) {
      const reason =
        "unanswered" in reply
          ? reply.unanswered
          : `${conflict ?? ""}JSON-RPC error ${reply.error.code} ${reply.error.message}`;
      this.context.logger.warn({ tx: tx.id, error: reason.slice(0, 500) }, "bundler did not take the operation");
      await this.context.repository.settle(tx.id, outcomeOfUntakenSend(this.context, tx, built, reason));
      return;
    }
    const failure = failureOfOperation(
      reply.error.message.slice(0, 500),
      built.userOp.paymasterAndData.slice(0, 42),
      this.context.builder.custodyPaymaster,
    );
    const action = mayHoldEarlierBuild(tx, failure) ? "retry" : failure.action;
    // `tx` as it was before this send: its attempts without this one (the send already counted), and its
    // userOp the earlier build, if any, which may still execute.
    await this.context.repository.settle(tx.id, await outcomeOfFailure(this.context, tx, { ...failure, action }));
  }

  /** `reply`, having logged the bundler's outage starting or ending with it. */
  private noted(reply: BundlerReply): BundlerReply {
    const unanswered = "unanswered" in reply ? reply.unanswered : undefined;
    if (unanswered !== undefined && this.outage === undefined) {
      this.context.logger.warn({ reason: unanswered }, "bundler not answering");
    } else if (unanswered === undefined && this.outage !== undefined) {
      this.context.logger.info({ after: this.outage }, "bundler answering again");
    }
    this.outage = unanswered;
    return reply;
  }
}

/**
 * Whether a JSON-RPC error answer says the bundler refused the operation: ERC-4337's codes (-32500…-32599: refused
 * by the EntryPoint, account, paymaster or mempool rules) and request errors (-32600…-32602: invalid request,
 * method not found, invalid params). Internal and server errors (-32603, -32000…) say nothing about whether the
 * operation was taken.
 */
const isRefusal = ({ code }: RpcErrorAnswer): boolean =>
  (code <= -32500 && code >= -32599) || (code <= -32600 && code >= -32602);

/**
 * Whether a refusal may only mean that the bundler still holds an earlier build of the request (same sender and
 * nonce: a replacement needs higher fees): the request was submitted before and the reason names no EntryPoint
 * check. Failing the request then could report as failed a request whose earlier build still executes, so it is
 * retried instead (built again until its attempts run out).
 */
const mayHoldEarlierBuild = (tx: WalletTxRecord, failure: OperationFailure): boolean =>
  tx.userOpHash !== undefined && failure.code === "OPERATION_REJECTED";
