/**
 * One measured scenario of the UserOperation bench: a run of requests against a service, the CPU its processes spent
 * meanwhile, and the check that the chain's bundles carry exactly the requests.
 */
import type { ChainNodeKind } from "../../scripts/localStack/chainNode";
import { type CpuSpent, cpuSpent, snapshotCpu } from "./processCpu";
import { chainBundles } from "./userOpsChain";
import { type CustodyCount, auditMark, countCustody } from "./userOpsCustody";
import {
  type UserOpRequest,
  type UserOpsLoadOptions,
  type UserOpsRun,
  UserOpsFailure,
  runUserOps,
} from "./userOpsLoad";
import type { MethodTimes, RpcTrace } from "./userOpsRpcTrace";
import type { KeysMode, UserOpsChain, UserOpsService, WalletCode } from "./userOpsStack";

/** What one scenario measured. */
export interface Phase {
  readonly chain: ChainNodeKind;
  readonly label: string;
  readonly walletCode: WalletCode;
  readonly keys: KeysMode;
  readonly maxOpsPerBundle: number;
  readonly offeredPerSecond: number;
  readonly run: UserOpsRun;
  readonly bundles: number;
  readonly gasPerOp: number;
  /** CPU over the run: `service` (its process tree), `chain` (anvil's process; Hardhat's is in `bench`), `bench`. */
  readonly cpu: CpuSpent;
  readonly rpc?: readonly MethodTimes[];
  /** The custody signatures the scenario made, from the audit log (absent when the service's database is shared). */
  readonly custody?: CustodyCount;
}

/** A scenario: its name, the service's bundle size, and the load offered. */
export interface PhaseSettings {
  readonly label: string;
  readonly maxOpsPerBundle: number;
  readonly load: UserOpsLoadOptions;
  readonly trace?: RpcTrace;
}

/** Runs `requests` against `service` and checks them against the bundles the chain holds afterwards. */
export async function measure(
  settings: PhaseSettings,
  chain: UserOpsChain,
  service: UserOpsService,
  requests: readonly UserOpRequest[],
): Promise<Phase> {
  const { label, trace } = settings;
  const provider = chain.node.provider;
  const fromBlock = (await provider.getBlockNumber()) + 1;
  const roots: Record<string, number> = { service: service.pid, bench: process.pid };
  if (chain.node.pid !== undefined) roots.chain = chain.node.pid;
  const seqBefore = service.databasePath === undefined ? undefined : await auditMark(service.databasePath);
  trace?.take();
  const before = snapshotCpu(roots);
  const run = await runUserOps(service.url, service.appToken, requests, settings.load);
  const cpu = cpuSpent(before, snapshotCpu(roots));
  const rpc = trace?.take();
  const onChain = await chainBundles(
    provider,
    { fromBlock, toBlock: await provider.getBlockNumber() },
    chain.relayer,
    chain.deployment.contracts.entryPoint,
  );
  const unknown = [...new Set(run.ops.map((o) => o.transactionHash.toLowerCase()))].filter(
    (hash) => !onChain.txHashes.has(hash),
  );
  if (onChain.ops !== run.ops.length || unknown.length > 0) {
    throw new UserOpsFailure(
      `${label}: ${run.ops.length} requests included, but the chain holds ${onChain.ops} operations in ` +
        `${onChain.bundles} bundles${unknown.length > 0 ? `, and not ${unknown.join(", ")}` : ""}`,
    );
  }
  const custody =
    seqBefore === undefined
      ? undefined
      : await countCustody(service.databasePath!, seqBefore, onChain.opsByBundle, {
          custodyPaymaster: chain.deployment.contracts.custodyPaymaster,
          chainId: BigInt(chain.deployment.chainId),
        });
  return {
    chain: chain.node.kind,
    label,
    walletCode: chain.walletCode,
    keys: service.keys,
    maxOpsPerBundle: settings.maxOpsPerBundle,
    offeredPerSecond: settings.load.ratePerSecond,
    run,
    bundles: onChain.bundles,
    gasPerOp: Number(onChain.gasUsed) / onChain.ops,
    cpu,
    ...(rpc ? { rpc } : {}),
    ...(custody ? { custody } : {}),
  };
}
