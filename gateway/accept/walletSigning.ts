import type { AppPrincipal } from "../auth/appTokens";
import { type UserProofDeps, checkUserProof } from "../auth/userProof";
import { wrapErc6492 } from "../identity/erc6492";
import type { ChainCapabilitiesTable } from "./chainCapabilities";
import { ApiError } from "../errors/apiError";
import { formatUserId } from "../identity/userId";
import { createAccountCallData } from "../userop/callData";
import { signingChain } from "./chainChecks";
import { actingApp, requestUserId } from "../auth/requestChecks";
import { deriveWalletAddress, walletSalt } from "../identity/walletAddress";
import type { App } from "../auth/app";
import type { WalletMessageSigner } from "../custody/walletMessageSigner";

/** A sign request (spec §2.6), with the optional chain the signature is meant for. */
export interface SignRequest {
  readonly userId: string;
  readonly hash: string;
  readonly auth: string;
  readonly chain?: string;
}

/** What signing for a user needs. */
export interface WalletSigningDeps {
  readonly kernelFactory: string;
  /** The key the owner account accepts (in this process, or asked of the one that holds it); undefined: none. */
  readonly signer: WalletMessageSigner | undefined;
  /** What each chain can do here: a signature may name a chain the API serves. */
  readonly capabilities: ChainCapabilitiesTable;
  readonly findApp: (appId: string) => Promise<App | undefined>;
  readonly proof: UserProofDeps;
}

/**
 * EIP-1271 signature of a user's Kernel wallet over `hash`, after the user proof: the owner account's key
 * signs the wallet's replay-safe hash. `signature` is ERC-6492-wrapped (valid before deployment for
 * ERC-6492 verifiers) unless `chain` is given and the wallet is deployed there; `erc1271Signature` is the
 * plain signature `isValidSignature` takes on any chain where the wallet exists.
 */
export async function signForUser(request: SignRequest, principal: AppPrincipal, deps: WalletSigningDeps) {
  if (!deps.signer)
    throw new ApiError(503, "SIGNER_NOT_CONFIGURED", "Signing unavailable", "This deployment has no wallet signer key");
  const userId = requestUserId(request.userId);
  const target = request.chain === undefined ? undefined : signingChain(request.chain, deps.capabilities);
  const client = target?.client;
  const app = await actingApp(principal, deps.findApp);
  // The scope is every chain whatever `chain` names: the signature covers the wallet's replay-safe hash, whose
  // EIP-712 domain has no chain id (docs/contracts.md), so it verifies on every chain where the wallet is deployed,
  // production ones included. `chain` only says where to look for the wallet (ERC-6492 or not). So a blank auth
  // (test mode) never yields a signature.
  await checkUserProof(
    userId,
    request.auth,
    { appId: app.id, testMode: app.testMode },
    { chainType: undefined },
    deps.proof,
  );

  const accountAddress = deriveWalletAddress(deps.kernelFactory, "kernel", userId);
  const erc1271Signature = await deps.signer.signWalletMessage(accountAddress, request.hash, {
    appId: app.id,
    userId: formatUserId(userId),
    ...(request.chain ? { chain: request.chain } : {}),
    ...(principal.token !== undefined && { appToken: principal.token }),
  });
  const deployed = client ? (await client.provider.getCode(accountAddress)) !== "0x" : null;
  const factoryCalldata = createAccountCallData(walletSalt("kernel", userId));
  return {
    userId: formatUserId(userId),
    accountAddress,
    hash: request.hash,
    ...(request.chain ? { chain: request.chain } : {}),
    deployed,
    signature: deployed ? erc1271Signature : wrapErc6492(deps.kernelFactory, factoryCalldata, erc1271Signature),
    erc1271Signature,
  };
}
