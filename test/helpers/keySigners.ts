import { computeAddress } from "ethers";
import type { Config } from "../../gateway/config/schema";
import type { CustodySigner } from "../../gateway/custody/custodySigner";
import { createEnvKeySigner } from "../../gateway/custody/envKey";
import type { AppDeps } from "../../gateway/app";
import {
  type KeySigner,
  type SignatureLog,
  type SignatureRecord,
  auditedSigner,
} from "../../gateway/custody/keySigner";
import { localWalletMessageSigner } from "../../gateway/custody/walletMessageSigner";
import type { KeyAddresses } from "../../gateway/custody/serviceKeys";

/** A custody signer for a test's raw key. */
export const testCustodySigner = (privateKey: string): CustodySigner => createEnvKeySigner(privateKey, "test key");

/** A key signer for a test's raw key; what it signs is pushed to `log`, if given. */
export const testKeySigner = (privateKey: string, log?: SignatureRecord[]): KeySigner =>
  auditedSigner(testCustodySigner(privateKey), { record: async (entry) => void log?.push(entry) });

/** The addresses of the raw transaction keys a test's configuration sets (what the service learns by opening them). */
export function rawKeyAddresses(config: Config): KeyAddresses {
  const raw: [keyof KeyAddresses, string | undefined][] = [
    ["walletSigner", config.walletSignerKey],
    ["sponsorSigner", config.sponsorSignerKey],
    ["relayer", config.relayerKey],
    ["safeOperator", config.safe.operatorKey],
  ];
  return Object.fromEntries(raw.flatMap(([key, value]) => (value ? [[key, computeAddress(value)]] : [])));
}

/**
 * The custody an API test's app has: the raw keys of its configuration, in this process, every signature recorded
 * in `log` (the app's own signing log).
 */
export function testCustody(config: Config, log: SignatureLog): AppDeps["custody"] {
  const wallet = config.walletSignerKey;
  return {
    addresses: rawKeyAddresses(config),
    walletSigner: wallet ? localWalletMessageSigner(auditedSigner(testCustodySigner(wallet), log)) : undefined,
    ccipGateway: config.ens.signerKeys.length > 0,
  };
}
