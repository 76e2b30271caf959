import hre from "hardhat";
import { HDNodeWallet } from "ethers";

/** A Hardhat dev account's private key (the public test mnemonic); only for local chains and tests. */
export function devKey(index: number): string {
  const accounts = hre.config.networks.hardhat.accounts as { mnemonic: string; path: string };
  return HDNodeWallet.fromPhrase(accounts.mnemonic, undefined, `${accounts.path}/${index}`).privateKey;
}
