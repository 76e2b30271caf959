// @ts-check
// An app's backend on an idwallet service, with nothing but the client package (and viem, its peer, to read the
// chain): phone login, a gasless batch from the user's wallet, and a signed message checked on chain. See README.md.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { IdwalletError, createIdwalletClient } from "@idwallet/client";
import { createPublicClient, encodeFunctionData, http, isAddress, parseAbi } from "viem";

/** The demo ERC-20's two functions the batch calls (anyone may mint it). */
const ERC20 = parseAbi(["function mint(address to, uint256 amount)", "function transfer(address to, uint256 amount)"]);
/** The largest request body this server reads. */
const MAX_BODY_BYTES = 16 * 1024;

/** An answer with a status other than 200, thrown by a handler. */
class HttpError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** @param {string} name */
function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
}

const idwallet = createIdwalletClient({
  baseUrl: required("IDWALLET_URL"),
  clientId: required("IDWALLET_CLIENT_ID"),
  clientSecret: required("IDWALLET_CLIENT_SECRET"),
});
const chainNode = createPublicClient({ transport: http(required("RPC_URL")) });
const port = Number(process.env.PORT ?? 4000);

// The service names chains by its own short names: find the one whose id the RPC node reports.
const chainId = await chainNode.getChainId();
const network = (await idwallet.networks()).networks.find((n) => n.chainId === chainId && n.configured);
if (!network) throw new Error(`the idwallet service has no configured chain with id ${chainId} (RPC_URL)`);
const chain = network.name;

/**
 * Logged-in users by session id: the user token (the user's proof for each request) stays on this server, and the
 * session ends when the token does (`expiresAt`, ms).
 * @type {Map<string, { userId: string, userToken: string, address: `0x${string}`, expiresAt: number }>}
 */
const sessions = new Map();
// Sessions nobody comes back for are dropped too, so the map holds only live logins.
setInterval(() => {
  for (const [sessionId, session] of sessions) if (session.expiresAt <= Date.now()) sessions.delete(sessionId);
}, 60_000).unref();

/** @param {import("node:http").IncomingMessage} req @returns {Promise<Record<string, unknown>>} */
async function jsonBody(req) {
  // Bytes first, decoded once: a character split across two chunks would otherwise be decoded as two U+FFFD, and a
  // message signed other than sent.
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "body too large");
    chunks.push(chunk);
  }
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body;
  } catch {
    // answered below
  }
  throw new HttpError(400, "send a JSON object");
}

/** @param {Record<string, unknown>} body @param {string} field */
function text(body, field) {
  const value = body[field];
  if (typeof value !== "string" || value === "") throw new HttpError(400, `${field} must be a non-empty string`);
  return value;
}

/** The session named by `Authorization: Bearer <session id>`. @param {import("node:http").IncomingMessage} req */
function sessionOf(req) {
  const sessionId = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const session = sessions.get(sessionId);
  if (session && session.expiresAt <= Date.now()) sessions.delete(sessionId);
  else if (session) return session;
  throw new HttpError(401, "log in first (POST /login/start, then /login/verify)");
}

/** @type {Record<string, (req: import("node:http").IncomingMessage) => Promise<unknown>>} */
const routes = {
  // 1. Phone login: the service texts a code...
  "POST /login/start": async (req) => {
    await idwallet.signInWithOtp({ phone: text(await jsonBody(req), "phone") });
    return { sent: true };
  },

  // ...which the user types back: the user token is kept here, the browser gets a session id.
  "POST /login/verify": async (req) => {
    const body = await jsonBody(req);
    const login = await idwallet.verifyOtp({ phone: text(body, "phone"), code: text(body, "code") });
    const [wallet] = await idwallet.resolve([login.userId]);
    if (!wallet) throw new Error(`no wallet for ${login.userId}`);
    const address = /** @type {`0x${string}`} */ (wallet.accountAddress);
    const sessionId = randomUUID();
    const expiresAt = Date.now() + login.expiresIn * 1000;
    sessions.set(sessionId, { userId: login.userId, userToken: login.userToken, address, expiresAt });
    return { sessionId, userId: login.userId, address };
  },

  // 2. A gasless batch, one UserOperation: mint `amount` of the ERC-20 `token` to the wallet, then pass it on to
  // `to`. The transfer works only because the mint before it ran in the same batch.
  "POST /batch": async (req) => {
    const session = sessionOf(req);
    const body = await jsonBody(req);
    const token = text(body, "token");
    const to = text(body, "to");
    if (!isAddress(token) || !isAddress(to)) throw new HttpError(400, "token and to must be addresses");
    const amountText = text(body, "amount");
    if (!/^[0-9]{1,30}$/.test(amountText)) throw new HttpError(400, "amount must be a whole number (token units)");
    const amount = BigInt(amountText);
    const accepted = await idwallet.sendCalls({
      userId: session.userId,
      auth: session.userToken,
      chain,
      calls: [
        { to: token, data: encodeFunctionData({ abi: ERC20, functionName: "mint", args: [session.address, amount] }) },
        { to: token, data: encodeFunctionData({ abi: ERC20, functionName: "transfer", args: [to, amount] }) },
      ],
    });
    return idwallet.waitForTransaction(accepted.id, { timeoutMs: 60_000 });
  },

  // 3. A message signed by the wallet (EIP-191, EIP-1271; ERC-6492 before the wallet is deployed), checked on chain.
  "POST /sign": async (req) => {
    const session = sessionOf(req);
    const message = text(await jsonBody(req), "message");
    const signed = await idwallet.signMessage({ userId: session.userId, auth: session.userToken, chain, message });
    const signature = /** @type {`0x${string}`} */ (signed.signature);
    const valid = await chainNode.verifyMessage({ address: session.address, message, signature });
    return { signature, valid };
  },
};

const server = createServer((req, res) => {
  /** @param {number} status @param {unknown} body */
  const answer = (status, body) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const route = routes[`${req.method} ${req.url}`];
  if (!route) return answer(404, { error: "no such route" });
  route(req).then(
    (body) => answer(200, body),
    (error) => {
      // The service's refusal, passed on with its code and request id (what to quote when asking its operator).
      if (error instanceof IdwalletError) {
        return answer(error.status, { error: error.message, code: error.code, requestId: error.requestId });
      }
      if (error instanceof HttpError) return answer(error.status, { error: error.message });
      console.error(error);
      answer(500, { error: "internal error" });
    },
  );
});

server.listen(port, "127.0.0.1", () => {
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  console.log(`phone-wallet example listening on http://127.0.0.1:${address.port} (chain ${chain})`);
});
