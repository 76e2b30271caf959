import type { Logger } from "pino";
import type { Config } from "../config/schema";
import type { SignatureLog } from "./keySigner";
import { type KeyAddresses, type ServiceKeys, loadServiceKeys } from "./serviceKeys";
import { type WalletMessageSigner, localWalletMessageSigner } from "./walletMessageSigner";

/** The custody keys as one process of the service has them. */
export interface ProcessCustody {
  /** The address of each transaction key the deployment has (what decides which chains take which requests). */
  readonly addresses: KeyAddresses;
  /** The keys themselves, when this process holds them (it runs the transaction workers); none in an HTTP worker. */
  readonly signers?: ServiceKeys["signers"];
  /** What /v1/kernel/sign signs with: the wallet key here, or the primary's asked over IPC. */
  readonly walletMessages: WalletMessageSigner | undefined;
  close(): Promise<void>;
}

/** Opens the transaction keys in this process (a single-process service, or a cluster's primary). */
export async function openCustody(config: Config, log: SignatureLog, logger: Logger): Promise<ProcessCustody> {
  const keys = await loadServiceKeys(config, log, logger);
  const wallet = keys.signers.walletSigner;
  return {
    addresses: keys.addresses,
    signers: keys.signers,
    walletMessages: wallet ? localWalletMessageSigner(wallet) : undefined,
    close: () => keys.close(),
  };
}
