import { Interface, parseEther } from "ethers";
import { databaseLocation, redactDatabaseLocation } from "../../gateway/config/databaseSetting";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import { DEMO_PROVIDER } from "./demoApp";
import type { LocalStack } from "./startLocalStack";

/** The demo user the banner's transaction acts for: an id of the demo app's own provider (blank auth in test mode). */
export const DEMO_USER = `${DEMO_PROVIDER}:alice`;

/** The banner's example transaction: the demo user's wallet mints itself 1 demo token. */
export function demoTransaction(stack: LocalStack) {
  const wallet = deriveWalletAddress(stack.deployment.contracts.kernelFactory, "kernel", parseUserId(DEMO_USER));
  const data = new Interface(["function mint(address to, uint256 amount)"]).encodeFunctionData("mint", [
    wallet,
    parseEther("1"),
  ]);
  return { userId: DEMO_USER, chain: "localhost", to: [stack.demoTokens.erc20], value: ["0"], data: [data], auth: "" };
}

/** Where the custody keys are: this process, or (HSM mode) a SoftHSM2 token. */
function custodyLines(stack: LocalStack): string {
  const { addresses, hsm } = stack.custody;
  const where = hsm
    ? `in the SoftHSM2 token "${hsm.token}" (HSM mode, IDWALLET_HSM=1): the service
    signs through PKCS#11 and holds no raw key. Token in ${hsm.dir} (SOFTHSM2_CONF=${hsm.configPath})`
    : "raw, in this process (IDWALLET_HSM=1 keeps them in a SoftHSM2 token)";
  return `  Custody keys: Hardhat dev accounts 1-5, ${where}
    wallet signer ${addresses.walletSigner}   sponsor signer ${addresses.sponsorSigner}
    relayer       ${addresses.relayer}   CCIP signer    ${addresses.ccipSigner}`;
}

/** What persists of the chain across restarts, for the banner. */
function persistenceLine(stack: LocalStack): string {
  return stack.chainNode === "anvil"
    ? `saved in ${stack.config.dataDir}/chain-state.json on Ctrl-C, restored on the next start`
    : "new on every start, the old chain's records cleared; CHAIN_NODE=anvil keeps it";
}

/**
 * What the start did with the data directory's chain, when there is something to say (the banner's notice): the
 * chain restored, or the old chain's records cleared, counted by kind.
 */
export function chainNotice(stack: LocalStack): string | undefined {
  const { restored, newChainReason, cleared } = stack.chainHistory;
  const where = stack.config.dataDir;
  if (restored) return `Chain restored from ${where}: the Safes, wallets and transactions of the last run are on it.`;
  const counts = Object.entries(cleared ?? {})
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind}: ${n}`);
  if (counts.length === 0) return undefined;
  return `A new chain, so the old chain's records are cleared from ${where} (${counts.join(", ")}): ${newChainReason}.`;
}

/** A line to set the banner apart from the log lines around it. */
const RULE = "─".repeat(100);

/**
 * The start-up banner: where everything is, the demo credentials, and curl commands that work as printed; `notice`
 * (what the start did with the data's chain) above it. Printed once, between rules, apart from the logs.
 */
export function banner(stack: LocalStack, notice?: string): string {
  const c = stack.deployment.contracts;
  const api = stack.apiUrl;
  return `${RULE}
idwallet local stack is running${notice ? `\n\n  ${notice}` : ""}

  API           ${api}
  API reference ${api}/docs
  Chain RPC     ${stack.rpcUrl}   (chain localhost, id ${stack.deployment.chainId}, ${stack.chainNode})
  Chain state   ${persistenceLine(stack)}; npm start -- --fresh starts anew
  Data          ${stack.config.dataDir}
  Database      ${redactDatabaseLocation(databaseLocation(stack.config))}

  Contracts (the same addresses on every start)
    EntryPoint v0.7       ${c.entryPoint}
    KernelAccountFactory  ${c.kernelFactory}
    LegacyBaseFactory     ${c.baseFactory}
    OwnerAccount          ${c.ownerAccount}
    SponsorPaymaster      ${c.sponsorPaymaster} (staked at the EntryPoint: npm run stake -- status --network localhost)
    IdwalletResolver      ${c.ensResolver} (ENS resolver of ${stack.ens.domain})
    ENS registry (test)   ${stack.ens.registry}
    Demo ERC-20 / ERC-721 ${stack.demoTokens.erc20} / ${stack.demoTokens.erc721} (anyone may mint)
    Multicall3            ${stack.dust.multicall3}
    ETH/USD feed (test)   ${stack.dust.ethUsdFeed} (Chainlink-style, 8 decimals; anyone may setAnswer)

  Safe 1.5.0 (the same addresses on every start)
    Safe singleton               ${stack.safe.singleton}
    SafeProxyFactory             ${stack.safe.proxyFactory}
    CompatibilityFallbackHandler ${stack.safe.fallbackHandler}
    MultiSendCallOnly            ${stack.safe.multiSendCallOnly}
    Operator (owner of every Safe account) ${stack.custody.addresses.safeOperator}

${custodyLines(stack)}

  ENS names under ${stack.ens.domain}, e.g. alice.github.${stack.ens.domain}, 15551234567.tel.${stack.ens.domain},
  alice.at.example.com.email.${stack.ens.domain}. Point a wallet at the chain RPC with the ENS registry above, or (from this directory):
    node -e 'const {JsonRpcProvider,Network,EnsPlugin}=require("ethers"); const n=new Network("localhost",31337); n.attachPlugin(new EnsPlugin("${stack.ens.registry}",31337)); new JsonRpcProvider("${stack.rpcUrl}",n,{staticNetwork:n}).resolveName("alice.github.${stack.ens.domain}").then(console.log)'

  Demo app (test mode; the same on every start of this data directory, kept in ${stack.demoAppFile})
    client_id      ${stack.demoApp.clientId}
    client_secret  ${stack.demoApp.clientSecret}

  Try:
    curl -s ${api}/v1/networks
    curl -s -X POST ${api}/v1/resolver -H 'Content-Type: application/json' -d '{"userIds":"github:alice,tel:15551234567"}'
    curl -s -X POST ${api}/v1/resolver -H 'Content-Type: text/plain' -d '{"userIds":"email:alice@example.com"}'
    curl -s -X POST ${api}/v1/auth -d client_id=${stack.demoApp.clientId} -d client_secret=${stack.demoApp.clientSecret}

  Send a transaction (the demo app owns the provider "${DEMO_PROVIDER}": in test mode ${DEMO_USER} acts with a blank auth):
    TOKEN=$(curl -s -X POST ${api}/v1/auth -d client_id=${stack.demoApp.clientId} -d client_secret=${stack.demoApp.clientSecret} | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
    curl -s -X POST ${api}/v1/kernel/tx -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify(demoTransaction(stack))}'
    curl -s "${api}/v1/kernel/tx/<id from the answer>?wait=true" -H "Authorization: Bearer $TOKEN"

  Phone login: SMS codes go to ${stack.config.sms.outboxPath} (one JSON line per message).
    curl -s -X POST ${api}/functions/v1/signInWithOTP -H 'Content-Type: application/json' -d '{"phone":"+14155552671"}'

  Ctrl-C stops everything.
${RULE}`;
}
