import { readFile } from "node:fs/promises";
import { decryptKeystoreJson, isKeystoreJson } from "ethers";
import { CustodyError } from "./custodyError";
import type { CustodySigner } from "./custodySigner";
import { createEnvKeySigner } from "./envKey";
import { readSecretFile } from "./secretFile";
import type { KeystoreReference } from "./signerReference";

/**
 * A signer for a Web3 Secret Storage (keystore) JSON file, decrypted once with the password its password file
 * holds (scrypt or PBKDF2, as the file says); the key then stays in this process.
 */
export async function loadKeystoreSigner(reference: KeystoreReference): Promise<CustodySigner> {
  const { description, path, passwordFile } = reference;
  let json: string;
  try {
    json = await readFile(path, "utf8");
  } catch (error) {
    throw new CustodyError(`${description}: cannot read the keystore file (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!isKeystoreJson(json)) throw new CustodyError(`${description}: not a keystore (Web3 Secret Storage) JSON file`);
  const password = await readSecretFile(passwordFile, "password", description);
  let privateKey: string;
  try {
    privateKey = (await decryptKeystoreJson(json, password)).privateKey;
  } catch (error) {
    // ethers' short message names the check that failed, never the password.
    const reason = (error as { shortMessage?: string }).shortMessage ?? "it does not decrypt";
    const why = reason === "incorrect password" ? `the password in ${passwordFile} does not open it` : reason;
    throw new CustodyError(`${description}: ${why}`);
  }
  return createEnvKeySigner(privateKey, description);
}
