import { Interface, type SigningKey } from "ethers";
import type { AppPrincipal } from "../auth/appTokens";
import { type UserProofDeps, checkUserProof } from "../auth/userProof";
import { kernelReplaySafeHash } from "../accounts/kernelMessage";
import { wrapErc6492 } from "../accounts/erc6492";
import type { ChainClient } from "../chains/clients";
import { chainByName } from "../chains/registry";
import { ApiError } from "../errors/apiError";
import { InvalidUserIdError, formatUserId, parseUserId } from "../identity/userId";
import { deriveWalletAddress, walletSalt } from "../identity/walletAddress";
import type { App } from "../storage/appsRepository";

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
  /** The hot key the owner account accepts; undefined: signing is not configured. */
  readonly signer: SigningKey | undefined;
  readonly chains: ReadonlyMap<string, ChainClient>;
  readonly findApp: (appId: string) => Promise<App | undefined>;
  readonly proof: UserProofDeps;
}

// The one factory call the service encodes; written out so the service needs no generated contract types.
const factoryInterface = new Interface(["function createAccount(bytes32 salt) returns (address)"]);

/**
 * EIP-1271 signature of a user's Kernel wallet over `hash`, after the user proof: the owner account's key
 * signs the wallet's replay-safe hash. `signature` is ERC-6492-wrapped (valid before deployment for
 * ERC-6492 verifiers) unless `chain` is given and the wallet is deployed there; `erc1271Signature` is the
 * plain signature `isValidSignature` takes on any chain where the wallet exists.
 */
export async function signForUser(request: SignRequest, principal: AppPrincipal, deps: WalletSigningDeps) {
  if (!deps.signer)
    throw new ApiError(503, "SIGNER_NOT_CONFIGURED", "Signing unavailable", "This deployment has no wallet signer key");
  let userId;
  try {
    userId = parseUserId(request.userId);
  } catch (error) {
    if (!(error instanceof InvalidUserIdError)) throw error;
    throw new ApiError(400, "INVALID_USER_ID", "Invalid user id", error.reason, {
      userId: request.userId.slice(0, 64),
    });
  }
  const client = request.chain === undefined ? undefined : chainClient(request.chain, deps.chains);
  const app = await deps.findApp(principal.appId);
  if (!app) throw new ApiError(401, "APP_DISABLED", "Unauthorized", "The app this token was issued to is gone");
  await checkUserProof(userId, request.auth, { appId: app.id, testMode: app.testMode }, deps.proof);

  const accountAddress = deriveWalletAddress(deps.kernelFactory, "kernel", userId);
  const erc1271Signature = deps.signer.sign(kernelReplaySafeHash(accountAddress, request.hash)).serialized;
  const deployed = client ? (await client.provider.getCode(accountAddress)) !== "0x" : null;
  const factoryCalldata = factoryInterface.encodeFunctionData("createAccount", [walletSalt("kernel", userId)]);
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

function chainClient(name: string, chains: ReadonlyMap<string, ChainClient>): ChainClient {
  if (!chainByName(name)) throw new ApiError(400, "UNKNOWN_CHAIN", "Unknown chain", `No chain is named ${name}`);
  const client = chains.get(name);
  if (!client)
    throw new ApiError(400, "CHAIN_NOT_AVAILABLE", "Chain not available", `${name} is not served by this deployment`);
  return client;
}
