import type { KeySigner } from "../../custody/keySigner";
import type { Bundle } from "../../transactions/bundle";
import type { Fees } from "../../userop/operationDraft";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { RelayerCall } from "../../relaying/workKind";
import { signRelayerTransaction } from "./relayerTransaction";

/**
 * Signs the relayer's transaction making `call` and records it with the requests it carries, before it is
 * broadcast: after a crash it is tracked, not built again.
 */
export async function recordBundle(
  context: OperationContext,
  relayer: KeySigner,
  call: RelayerCall,
  fees: Fees,
  nonce: number,
): Promise<Bundle> {
  const { rawTx, txHash } = await signRelayerTransaction(
    relayer,
    {
      chainId: context.chain.chainId,
      nonce,
      to: call.to,
      data: call.data,
      value: 0n,
      gasLimit: call.gasLimit,
      ...fees,
    },
    context.chain.name,
  );
  return context.repository.recordBundle(
    { chain: context.chain.name, relayer: relayer.address, nonce, txHash, rawTx, ...fees },
    call.ops,
  );
}
