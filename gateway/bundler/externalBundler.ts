import { FetchRequest, JsonRpcProvider } from "ethers";
import { isTransportError } from "../chains/revertData";
import type { TxRecord } from "../storage/transactionsRepository";
import { failureFromReason } from "../transactions/failureCodes";
import { buildUserOperation } from "../transactions/userOpBuilder";
import { toRpcUserOperation } from "../userop/rpcUserOperation";
import { currentFees } from "./fees";
import { findExecutedOperation, includedOutcome } from "./operationEvents";
import { describeRevert } from "./revertReason";
import {
  type WorkerContext,
  mapLimit,
  onePerWallet,
  outcomeOfFailure,
  outcomeOfMissingOperation,
} from "./workerContext";

/** Where the chain's ERC-4337 bundler is. */
export interface ExternalBundlerSettings {
  readonly url: string;
  readonly timeoutMs: number;
  /** An operation without a receipt after this long is checked on chain and sent again. */
  readonly resendAfterMs: number;
}

/** eth_getUserOperationReceipt's answer (ERC-4337), the fields used. */
interface UserOperationReceipt {
  success: boolean;
  reason?: string;
  receipt: { transactionHash: string; blockNumber: string | number };
}

const CONCURRENCY = 8;

/**
 * Submits a chain's operations to an external ERC-4337 bundler (eth_sendUserOperation) and follows them with
 * eth_getUserOperationReceipt. Each operation is recorded as submitted before it is sent; one that never shows
 * a receipt is checked on chain by its nonce key before it is sent again, so it executes at most once.
 */
export class ExternalBundler {
  private readonly bundler: JsonRpcProvider;

  constructor(
    private readonly context: WorkerContext,
    private readonly settings: ExternalBundlerSettings,
  ) {
    const request = new FetchRequest(settings.url);
    request.timeout = settings.timeoutMs;
    this.bundler = new JsonRpcProvider(request, context.chain.chainId, {
      staticNetwork: true,
      batchMaxCount: 1,
      cacheTimeout: -1,
    });
  }

  async tick(): Promise<boolean> {
    const tracked = await this.track();
    const sent = await this.sendDue();
    return tracked || sent;
  }

  private async track(): Promise<boolean> {
    const submitted = await this.context.repository.submitted(this.context.chain.name);
    const settled = await mapLimit(submitted, CONCURRENCY, (tx) => this.follow(tx));
    return settled.some(Boolean);
  }

  private async follow(tx: TxRecord): Promise<boolean> {
    const receipt: UserOperationReceipt | null = await this.bundler.send("eth_getUserOperationReceipt", [
      tx.userOpHash,
    ]);
    if (receipt) {
      await this.context.repository.settle(tx.id, {
        status: "included",
        transactionHash: receipt.receipt.transactionHash,
        blockNumber: Number(receipt.receipt.blockNumber),
        success: receipt.success,
        ...(receipt.success
          ? {}
          : {
              error: {
                code: "EXECUTION_REVERTED",
                message: receipt.reason ? describeRevert(receipt.reason) : "reverted",
              },
            }),
      });
      return true;
    }
    if (this.context.clock().getTime() - Date.parse(tx.updatedAt) < this.settings.resendAfterMs) return false;
    const executed = await findExecutedOperation(this.context.chain.provider, this.context.entryPoint, tx);
    await this.context.repository.settle(
      tx.id,
      executed ? includedOutcome(executed) : await outcomeOfMissingOperation(this.context, tx),
    );
    return true;
  }

  private async sendDue(): Promise<boolean> {
    const { repository, chain } = this.context;
    const due = onePerWallet(
      await repository.due(chain.name, this.context.clock(), this.context.maxOpsPerBundle),
      this.context.maxOpsPerBundle,
    );
    if (due.length === 0) return false;
    const fees = await currentFees(chain.provider);
    await mapLimit(due, CONCURRENCY, async (tx) => {
      const deployed = (await chain.provider.send("eth_getCode", [tx.sender, "latest"])) !== "0x";
      const result = await buildUserOperation(tx, { deployed, fees }, this.context.builder);
      if ("failure" in result) {
        await repository.settle(tx.id, await outcomeOfFailure(this.context, tx, result.failure));
        return;
      }
      await repository.markSubmitted(result.built);
      try {
        await this.bundler.send("eth_sendUserOperation", [
          toRpcUserOperation(result.built.userOp),
          this.context.entryPoint,
        ]);
      } catch (error) {
        // Unknown fate (timeout): tracking finds the receipt or, later, checks the chain and resends.
        if (isTransportError(error)) return;
        const message = String((error as { error?: { message?: string } })?.error?.message ?? (error as Error).message);
        const fresh = (await repository.find(tx.id))!;
        await repository.settle(tx.id, await outcomeOfFailure(this.context, fresh, failureFromReason(message)));
      }
    });
    return true;
  }
}
