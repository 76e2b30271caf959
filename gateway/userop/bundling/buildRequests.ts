import type { WalletTxRecord } from "../../transactions/txRecord";
import type { OperationFailure } from "../failureCodes";
import type { BuildRequest } from "../userOpBuilder";
import type { SigningScheme } from "../walletSchemes";
import type { OperationContext } from "./operationContext";

/** What to build, and the requests that cannot be built for, with why. */
export interface PlannedBuilds {
  readonly requests: BuildRequest[];
  readonly refused: readonly { readonly tx: WalletTxRecord; readonly failure: OperationFailure }[];
}

/**
 * The build request of each of `txs`: only wallets the custodian holds are built for (WalletCustody: one read for all
 * deployed ones), each with how its operation is authorized: by the code its deployed wallet runs, or, for a wallet not
 * deployed yet, the code it will start on (a kernel wallet: the creator's, where one is configured). A node error
 * throws: the node's trouble charges nobody.
 */
export async function planBuilds(
  context: OperationContext,
  txs: readonly WalletTxRecord[],
  deployed: ReadonlySet<string>,
): Promise<PlannedBuilds> {
  const { refused, implementations } = await context.custody.inspect(
    txs.map((tx) => tx.sender).filter((s) => deployed.has(s)),
  );
  const requests: BuildRequest[] = [];
  const notBuilt: { tx: WalletTxRecord; failure: OperationFailure }[] = [];
  for (const tx of txs) {
    const wallet = tx.sender.toLowerCase();
    const scheme = refused.get(wallet) ?? (await schemeOf(context, tx, implementations.get(wallet)));
    if (typeof scheme === "string") requests.push({ tx, deployed: deployed.has(tx.sender), scheme });
    else notBuilt.push({ tx, failure: scheme });
  }
  return { requests, refused: notBuilt };
}

async function schemeOf(
  context: OperationContext,
  tx: WalletTxRecord,
  implementation: string | undefined,
): Promise<SigningScheme | OperationFailure> {
  if (implementation !== undefined) return context.schemes.ofImplementation(implementation);
  return tx.accountType === "kernel" ? context.schemes.ofNewKernelWallet() : "ownerSignature";
}
