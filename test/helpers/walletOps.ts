import { ethers } from "hardhat";
import type { BaseContract, Signer, TransactionResponse } from "ethers";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { buildUserOp, handleOps, signUserOp } from "./userOps";

/** What running a wallet's UserOperations straight through the EntryPoint needs. */
export interface WalletOpsContext {
  readonly entryPoint: BaseContract;
  readonly chainId: bigint;
  readonly beneficiary: string;
}

/**
 * Returns `run(callData, signer)`: signs one operation for `wallet` with `signer` (any key; the wallet decides
 * whether it counts) and sends it alone through `handleOps`, deploying the wallet by `initCode` while it has no code.
 */
export function walletRunner(context: WalletOpsContext, wallet: string, initCode: string) {
  const entryPoint = context.entryPoint;
  return async (
    callData: string,
    signer: Signer,
    extra: Partial<PackedUserOperation> = {},
  ): Promise<TransactionResponse> => {
    const deployed = (await ethers.provider.getCode(wallet)) !== "0x";
    const op = buildUserOp({
      sender: wallet,
      nonce: await entryPoint.getFunction("getNonce")(wallet, 0),
      callData,
      initCode: deployed ? "0x" : initCode,
      ...extra,
    });
    const signed = await signUserOp(op, signer, await entryPoint.getAddress(), context.chainId);
    return handleOps(entryPoint, [signed], context.beneficiary);
  };
}
