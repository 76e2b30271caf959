import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { JsonRpcProvider, Wallet, concat, getBytes, hashMessage, toQuantity } from "ethers";
import { revertDataOf } from "../../gateway/chains/revertData";
import { decodeEntryPointError, entryPointInterface, opTuple } from "../../gateway/userop/entryPoint";
import {
  type PackedUserOperation,
  packAccountGasLimits,
  packGasFees,
  packInitCode,
  packUint128Pair,
  userOperationHash,
} from "../../gateway/userop/packedUserOperation";
import type { RpcUserOperation } from "../../gateway/userop/rpcUserOperation";
import { devKey } from "../../scripts/localStack/devKeys";

/** ERC-4337 error code of an operation the EntryPoint (or the account) rejects. */
const REJECTED_BY_ENTRY_POINT = -32500;
const OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
const REVERT_EVENT = entryPointInterface.getEvent("UserOperationRevertReason")!.topicHash;

type RpcLog = { address: string; topics: string[]; data: string };

/**
 * How a bundler in trouble answers a call, with no JSON-RPC answer: `http`, an HTTP error status with an HTML page
 * (a crashed server, or a proxy or rate limiter in front of it: 500, 502, 429); "silence", never (the connection stays
 * open); "hangUp", by closing the connection.
 */
export type Outage = { readonly http: number } | "silence" | "hangUp";

/**
 * A misbehaviour for one eth_sendUserOperation. `reject`: answer a JSON-RPC error with this message (`code`, default
 * -32500; over HTTP `status`, default 200), having submitted nothing or, with `afterSubmitting`, the operation.
 * `http`, "silence", "hangUp": that outage for this call alone (`afterSubmitting`: the operation submitted all the
 * same). "forge": replace the signature with a stranger's, so the EntryPoint itself refuses the operation. "drop":
 * answer its hash, submit nothing (a mempool that lost it). "hide": submit it, but its receipt stays null.
 */
export type Fault =
  | { readonly reject: string; readonly code?: number; readonly status?: number; readonly afterSubmitting?: boolean }
  | { readonly http: number; readonly afterSubmitting?: boolean }
  | "silence"
  | "hangUp"
  | "forge"
  | "drop"
  | "hide";

/** An outage thrown out of a call, for the HTTP layer to act out. */
class OutageAnswer extends Error {
  constructor(readonly outage: Outage) {
    super("outage");
  }
}

/** A JSON-RPC error answer, over HTTP `status`. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = 200,
  ) {
    super(message);
  }
}

/** A JSON-RPC QUANTITY, strictly as nodes and bundlers parse it: hex without leading zeros ("0x0", "0x1f"). */
function quantity(value: string | undefined): bigint {
  if (value === undefined || !/^0x(0|[1-9a-f][0-9a-f]*)$/i.test(value)) {
    throw new RpcError(-32602, `invalid params: ${value} is not a hex quantity`);
  }
  return BigInt(value);
}

/** The PackedUserOperation the EntryPoint takes, from the bundler RPC form. */
function packed(op: RpcUserOperation): PackedUserOperation {
  return {
    sender: op.sender,
    nonce: quantity(op.nonce),
    initCode: op.factory ? packInitCode(op.factory, op.factoryData ?? "0x") : "0x",
    callData: op.callData,
    accountGasLimits: packAccountGasLimits(quantity(op.verificationGasLimit), quantity(op.callGasLimit)),
    preVerificationGas: quantity(op.preVerificationGas),
    gasFees: packGasFees(quantity(op.maxPriorityFeePerGas), quantity(op.maxFeePerGas)),
    // paymaster ‖ paymasterVerificationGasLimit (16 bytes) ‖ paymasterPostOpGasLimit (16 bytes) ‖ paymasterData
    paymasterAndData: op.paymaster
      ? concat([
          op.paymaster,
          packUint128Pair(quantity(op.paymasterVerificationGasLimit), quantity(op.paymasterPostOpGasLimit)),
          op.paymasterData ?? "0x",
        ])
      : "0x",
    signature: op.signature,
  };
}

/**
 * A test-only ERC-4337 v0.7 bundler (JSON-RPC over HTTP on 127.0.0.1) standing in for a third-party one: each
 * accepted operation is submitted at once, alone, with `EntryPoint.handleOps` from a funded Hardhat dev key that no
 * other part of the local stack uses. It counts what it received and sent, so tests can tell nothing went twice.
 */
export class TestBundler {
  /** userOpHash of every eth_sendUserOperation received, rejected ones included, in order. */
  readonly received: string[] = [];
  /** Hash of every handleOps transaction sent. */
  readonly bundles: string[] = [];
  /** Faults of the next eth_sendUserOperation calls, one each; the others are submitted as they are. */
  readonly faults: Fault[] = [];
  /** While set, every call meets this outage (an eth_sendUserOperation still counted in `received`), faults aside. */
  outage: Outage | undefined;
  readonly signer = new Wallet(devKey(5));
  private chain: JsonRpcProvider | undefined;
  private entryPoint = "";
  private chainId = 0n;
  private readonly txOf = new Map<string, string>(); // userOpHash → its handleOps transaction
  private readonly hidden = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve(); // one handleOps at a time: each takes the next nonce

  private constructor(private readonly server: Server) {}

  /** Listens on a free port; the chain comes later (`attach`), as the service must know the URL before it starts. */
  static async start(): Promise<TestBundler> {
    const bundler: TestBundler = new TestBundler(createServer((req, res) => void bundler.serve(req, res)));
    await new Promise<void>((resolve) => bundler.server.listen(0, "127.0.0.1", resolve));
    return bundler;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Bundles for `entryPoint` on the chain at `rpcUrl`. */
  async attach(rpcUrl: string, entryPoint: string): Promise<void> {
    this.chain = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1 });
    this.chainId = (await this.chain.getNetwork()).chainId;
    this.entryPoint = entryPoint;
  }

  async close(): Promise<void> {
    this.chain?.destroy();
    this.server.closeAllConnections(); // the ones left open by silence
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const { id, method, params = [] } = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
    let answer: Record<string, unknown>;
    try {
      answer = { result: await this.call(method, params) };
    } catch (error) {
      if (error instanceof OutageAnswer) return this.actOut(error.outage, req, res);
      const known = error instanceof RpcError ? error : new RpcError(-32603, (error as Error).message);
      answer = { error: { code: known.code, message: known.message } };
      res.statusCode = known.status;
    }
    res.setHeader("Content-Type", "application/json").end(JSON.stringify({ jsonrpc: "2.0", id, ...answer }));
  }

  /** Answers as `outage` says: an HTTP error page, nothing at all, or a closed connection. */
  private actOut(outage: Outage, req: IncomingMessage, res: ServerResponse): void {
    if (outage === "silence") return;
    if (outage === "hangUp") {
      req.socket.destroy();
      return;
    }
    const status = `${outage.http} ${STATUS_CODES[outage.http] ?? ""}`;
    res.writeHead(outage.http, { "Content-Type": "text/html" }).end(`<html><body><h1>${status}</h1></body></html>`);
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    if (this.outage && method !== "eth_sendUserOperation") throw new OutageAnswer(this.outage);
    if (method === "eth_chainId") return toQuantity(this.chainId);
    if (method === "eth_supportedEntryPoints") return [this.entryPoint];
    if (method === "eth_sendUserOperation")
      return this.sendUserOperation(params[0] as RpcUserOperation, `${params[1]}`);
    if (method === "eth_getUserOperationReceipt") return this.receipt(String(params[0]).toLowerCase());
    throw new RpcError(-32601, `the method ${method} does not exist/is not available`);
  }

  /** Submits the operation at once; a FailedOp of the EntryPoint is answered with its reason ("AA24 ..."). */
  private async sendUserOperation(rpcOp: RpcUserOperation, entryPoint: string): Promise<string> {
    const chain = this.chain!;
    if (entryPoint.toLowerCase() !== this.entryPoint.toLowerCase())
      throw new RpcError(-32602, "unsupported entry point");
    let op = packed(rpcOp);
    const hash = userOperationHash(op, this.entryPoint, this.chainId).toLowerCase();
    this.received.push(hash);
    const fault = this.outage ?? this.faults.shift();
    const refusal =
      typeof fault === "object" && "reject" in fault
        ? new RpcError(fault.code ?? REJECTED_BY_ENTRY_POINT, fault.reject, fault.status)
        : typeof fault === "object" || fault === "silence" || fault === "hangUp"
          ? new OutageAnswer(typeof fault === "object" ? { http: fault.http } : fault)
          : undefined;
    if (refusal && !(typeof fault === "object" && "afterSubmitting" in fault && fault.afterSubmitting)) throw refusal;
    if (fault === "drop") return hash;
    if (fault === "hide") this.hidden.add(hash);
    if (fault === "forge") {
      op = { ...op, signature: Wallet.createRandom().signingKey.sign(hashMessage(getBytes(hash))).serialized };
    }
    const data = entryPointInterface.encodeFunctionData("handleOps", [[opTuple(op)], this.signer.address]);
    const send = async () => {
      const tx = { from: this.signer.address, to: this.entryPoint, data };
      const gas = await chain.estimateGas(tx).catch((error: unknown) => {
        const revert = revertDataOf(error);
        const decoded = revert === undefined ? undefined : decodeEntryPointError(revert);
        if (!decoded?.name.startsWith("FailedOp")) throw error;
        throw new RpcError(REJECTED_BY_ENTRY_POINT, String(decoded.args[1]));
      });
      const sent = await this.signer.connect(chain).sendTransaction({ ...tx, gasLimit: (gas * 12n) / 10n });
      this.bundles.push(sent.hash);
      this.txOf.set(hash, sent.hash);
    };
    await (this.queue = this.queue.then(send, send));
    if (refusal) throw refusal;
    return hash;
  }

  /** eth_getUserOperationReceipt (ERC-4337): null until the operation's handleOps transaction is mined. */
  private async receipt(hash: string) {
    const txHash = this.hidden.has(hash) ? undefined : this.txOf.get(hash);
    const receipt = txHash && (await this.chain!.send("eth_getTransactionReceipt", [txHash]));
    if (!receipt) return null;
    const logs = receipt.logs as RpcLog[];
    const mine = (topic: string) => (log: RpcLog) =>
      log.address.toLowerCase() === this.entryPoint.toLowerCase() && log.topics[0] === topic && log.topics[1] === hash;
    const eventIndex = logs.findIndex(mine(OP_EVENT));
    const event = entryPointInterface.parseLog(logs[eventIndex]!)!.args;
    const revert = logs.find(mine(REVERT_EVENT));
    return {
      userOpHash: hash,
      entryPoint: this.entryPoint,
      sender: event.sender,
      nonce: toQuantity(event.nonce),
      paymaster: event.paymaster,
      success: event.success,
      ...(revert ? { reason: entryPointInterface.parseLog(revert)!.args.revertReason } : {}),
      actualGasCost: toQuantity(event.actualGasCost),
      actualGasUsed: toQuantity(event.actualGasUsed),
      // One operation per bundle: its logs are the bundle's before its UserOperationEvent, minus the EntryPoint's.
      logs: logs.slice(0, eventIndex).filter((log) => log.address.toLowerCase() !== this.entryPoint.toLowerCase()),
      receipt,
    };
  }
}
