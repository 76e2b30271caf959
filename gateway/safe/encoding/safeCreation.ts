import { ZeroAddress, getCreate2Address, keccak256, solidityPacked } from "ethers";
import { SAFE_ARTIFACTS, safeInterface, safeProxyFactoryInterface } from "./safeArtifacts";

/** Calldata of Safe.setup(owners, 1, 0x0, 0x, fallbackHandler, 0x0, 0, 0x0): threshold 1 of n. */
export function safeInitializer(owners: readonly string[], fallbackHandler: string): string {
  // OwnerManager.setupOwners reverts (GS201) when the threshold exceeds the owner count: catch it before
  // an address is predicted for a Safe that could never be deployed.
  if (owners.length === 0) throw new Error("A Safe needs at least one owner");
  return safeInterface.encodeFunctionData("setup", [
    owners,
    1,
    ZeroAddress, // no module setup delegatecall
    "0x",
    fallbackHandler,
    ZeroAddress, // no deployment payment
    0,
    ZeroAddress,
  ]);
}

/** Calldata of SafeProxyFactory.createProxyWithNonce(singleton, initializer, saltNonce). */
export function createProxyCallData(singleton: string, initializer: string, saltNonce: bigint): string {
  return safeProxyFactoryInterface.encodeFunctionData("createProxyWithNonce", [singleton, initializer, saltNonce]);
}

/** The proxy's address, as the factory's CREATE2 computes it: salt = keccak256(keccak256(initializer) ‖ uint256(saltNonce)), init code = SafeProxy creation code ‖ uint256(singleton). No RPC. */
export function predictSafeAddress(factory: string, singleton: string, initializer: string, saltNonce: bigint): string {
  // SafeProxyFactory 1.5.0, createProxyWithNonce and deployProxy; the initializer is in the salt, so the
  // owners and fallback handler are bound to the address.
  const salt = keccak256(solidityPacked(["bytes32", "uint256"], [keccak256(initializer), saltNonce]));
  const initCode = solidityPacked(["bytes", "uint256"], [SAFE_ARTIFACTS.safeProxy.bytecode, singleton]);
  return getCreate2Address(factory, salt, keccak256(initCode));
}
