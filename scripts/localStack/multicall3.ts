import path from "node:path";
import { MULTICALL3_ADDRESS } from "../../gateway/dust/multicall3";

/** A JSON-RPC provider of a development chain (Hardhat's or ethers'): `send` is all the installer needs. */
interface DevChainProvider {
  send(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * Multicall3's genuine creation code, as viem (a pinned dev dependency) ships it for its own deployless calls. viem
 * does not export it, so it is read from the package's CommonJS build beside its entry point.
 */
async function multicall3CreationCode(): Promise<string> {
  const file = path.join(path.dirname(require.resolve("viem")), "constants", "contracts.js");
  const { multicall3Bytecode } = (await import(file)) as { multicall3Bytecode?: unknown };
  if (typeof multicall3Bytecode !== "string" || !/^0x([0-9a-f]{2})+$/i.test(multicall3Bytecode)) {
    throw new Error(`no Multicall3 creation code in ${file}`);
  }
  return multicall3Bytecode;
}

/**
 * Puts Multicall3 at its canonical address on a development chain and returns that address. The creation code is
 * run by an eth_call, whose answer is the runtime code (Multicall3 has no constructor arguments or immutables, so
 * that code is what its deployment left on every chain); hardhat_setCode then places it. Nothing is sent from any
 * account, so no nonce moves and no other contract's address changes.
 */
export async function installMulticall3(provider: DevChainProvider): Promise<string> {
  const runtime = String(await provider.send("eth_call", [{ data: await multicall3CreationCode() }, "latest"]));
  if (!/^0x([0-9a-f]{2})+$/i.test(runtime)) throw new Error("Multicall3's creation code returned no code");
  const current = String(await provider.send("eth_getCode", [MULTICALL3_ADDRESS, "latest"]));
  if (current.toLowerCase() !== runtime.toLowerCase()) {
    await provider.send("hardhat_setCode", [MULTICALL3_ADDRESS, runtime]);
  }
  return MULTICALL3_ADDRESS;
}
