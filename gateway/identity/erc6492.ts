import { AbiCoder, concat } from "ethers";

/** ERC-6492 magic suffix: marks a signature of a contract that may not be deployed yet. */
export const ERC6492_MAGIC = "0x6492649264926492649264926492649264926492649264926492649264926492";

/**
 * ERC-6492 wrapping: abi.encode(factory, factoryCalldata, signature) ‖ magic. A verifier that sees the
 * suffix deploys the wallet in a simulated call through the factory, then asks it (EIP-1271).
 */
export const wrapErc6492 = (factory: string, factoryCalldata: string, signature: string): string =>
  concat([
    AbiCoder.defaultAbiCoder().encode(["address", "bytes", "bytes"], [factory, factoryCalldata, signature]),
    ERC6492_MAGIC,
  ]);
