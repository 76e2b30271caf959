import { Interface } from "ethers";
import { AbiReader, hexBytes } from "./abiReader";

/** The call an OffchainResolver's OffchainLookup sends (ENSIP-10 resolve, answered by the gateway). */
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
/** The 4-byte selector of resolve(bytes,bytes), as 0x-hex. */
export const RESOLVE_SELECTOR = RESOLVE.getFunction("resolve")!.selector;
const SELECTOR_BYTES = 4;

/**
 * resolve(bytes name, bytes data) decoded as ethers' Interface decodes it, in any layout it accepts (AbiReader);
 * undefined where it refuses. The selector is the caller's to check. A property test holds it to ethers' decoding on
 * random and malformed calls.
 */
export function decodeResolveCall(callData: string): [name: Uint8Array, record: string] | undefined {
  try {
    const bytes = hexBytes(callData);
    if (bytes.length < SELECTOR_BYTES) return undefined;
    const args = new AbiReader(bytes.subarray(SELECTOR_BYTES));
    return [args.bytes(0, 0), `0x${args.bytes(0, 32).toString("hex")}`];
  } catch {
    return undefined;
  }
}
