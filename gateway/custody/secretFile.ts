import { readFile } from "node:fs/promises";
import { CustodyError } from "./custodyError";

/**
 * The secret a PIN or password file holds, less one trailing newline (what `echo` and editors add). `owner` and
 * `what` make the error message: `pkcs11:token=…;object=…: cannot read the PIN file /run/pin (ENOENT)`.
 */
export async function readSecretFile(path: string, what: string, owner: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CustodyError(`${owner}: cannot read the ${what} file ${path} (${code})`);
  }
  const secret = text.replace(/\r?\n$/, "");
  if (secret === "") throw new CustodyError(`${owner}: the ${what} file ${path} is empty`);
  return secret;
}
