import { Interface, type JsonRpcProvider } from "ethers";
import { ChainReadError } from "../chains/chainReadError";

/** Multicall3's address: the same on nearly every EVM chain (deployed from one keyless transaction). */
export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

/** One call of an aggregate3 batch. */
export interface Call3 {
  readonly target: string;
  /** When false, this call's failure reverts the whole batch. */
  readonly allowFailure: boolean;
  readonly callData: string;
}

/** Multicall3's functions the gateway calls: the batch itself, and the native balance read it offers as a call. */
export const multicall3Interface = new Interface([
  "function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)",
  "function getEthBalance(address addr) view returns (uint256 balance)",
]);

/** Thrown when the multicall answer is not an aggregate3 result for the batch sent (e.g. no Multicall3 there). */
export class Multicall3Error extends ChainReadError {
  override readonly name = "Multicall3Error";
}

/** Runs `calls` as one eth_call of Multicall3's aggregate3 on the latest block; results come in call order. */
export async function aggregate3(
  provider: JsonRpcProvider,
  calls: readonly Call3[],
  multicall: string = MULTICALL3_ADDRESS,
): Promise<{ success: boolean; returnData: string }[]> {
  const data = multicall3Interface.encodeFunctionData("aggregate3", [
    calls.map((call) => [call.target, call.allowFailure, call.callData]),
  ]);
  const answer: unknown = await provider.send("eth_call", [{ to: multicall, data }, "latest"]);
  // A call to an address without code succeeds with no data: say so rather than fail to decode.
  if (answer === "0x") throw new Multicall3Error(`no Multicall3 answers at ${multicall}`);
  let results: { success: boolean; returnData: string }[];
  try {
    const [decoded] = multicall3Interface.decodeFunctionResult("aggregate3", String(answer));
    results = (decoded as { success: boolean; returnData: string }[]).map(({ success, returnData }) => ({
      success,
      returnData,
    }));
  } catch {
    throw new Multicall3Error(`the answer of ${multicall} is not an aggregate3 result`);
  }
  if (results.length !== calls.length) {
    throw new Multicall3Error(`${multicall} answered ${results.length} results for ${calls.length} calls`);
  }
  return results;
}
