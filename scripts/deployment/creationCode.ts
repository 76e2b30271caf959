import { type Interface, concat } from "ethers";

/** Creation code (bytecode ‖ ABI-encoded constructor arguments) of a typechain contract factory. */
export function creationCode(
  factory: { readonly bytecode: string; createInterface(): Interface },
  ...args: readonly unknown[]
): string {
  return concat([factory.bytecode, factory.createInterface().encodeDeploy(args)]);
}
