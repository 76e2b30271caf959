import entryPointArtifact from "@account-abstraction/contracts/artifacts/EntryPoint.json";

/** Canonical address of the ERC-4337 v0.7 EntryPoint on every chain. */
export const ENTRY_POINT_V07 = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";

/**
 * Salt the canonical v0.7 EntryPoint was deployed with through the deterministic deployment proxy:
 * the npm artifact's creation code with this salt lands exactly at ENTRY_POINT_V07, so a local chain
 * gets the EntryPoint where production chains have it.
 */
export const ENTRY_POINT_V07_SALT = "0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3";

/** ABI and creation code of EntryPoint v0.7 from `@account-abstraction/contracts@0.7.0`. */
export const ENTRY_POINT_ARTIFACT: { readonly abi: readonly object[]; readonly bytecode: string } = entryPointArtifact;
