import { expect } from "chai";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { IdwalletError, UNEXPECTED_RESPONSE, WaitTimeoutError, createIdwalletClient } from "@idwallet/client";
import { closeAll, listenOn } from "../helpers/fastPathPair";

const SECRET = "the app's client secret";
const USER_PROOF = "the user's proof";
const HASH = `0x${"11".repeat(32)}` as const;
const REQUEST_ID = "0b4cba7e-3f7a-4b1e-9df6-5b7c1d2e8a90";

/** One request a stub origin received. */
interface Seen {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback origin answering with `handle` and keeping every request it received, its body too. */
async function origin(handle: Handler = (_req, res) => res.writeHead(404).end()) {
  const seen: Seen[] = [];
  const listening = await listenOn((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization, body });
      handle(req, res, body);
    });
  });
  return { url: `http://127.0.0.1:${listening.port}`, seen, server: listening.server };
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};
const tokenAnswer = (res: ServerResponse) => json(res, { access_token: "app-token", expires_in: 3600 });

/** A transaction record as the service answers it, for request `id`. */
const record = (id: string, status = "queued") => ({
  id,
  status,
  userId: "tel:14155552671",
  chain: "localhost",
  sender: "0x000000000000000000000000000000000000bEEF",
  userOpHash: null,
  transactionHash: null,
  blockNumber: null,
  success: null,
  error: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail("resolved"),
    (thrown: unknown) => thrown,
  );

describe("client package: answers held to their questions (a man in the middle, a redirect, a mixed-up answer)", () => {
  const opened: { server: Server }[] = [];
  const serve = async (handle?: Handler) => {
    const served = await origin(handle);
    opened.push(served);
    return served;
  };
  afterEach(() => closeAll(opened.splice(0)));

  const clientOf = (baseUrl: string) => createIdwalletClient({ baseUrl, clientId: "app", clientSecret: SECRET });

  it("a 307 from the token endpoint to another origin gets the client secret nowhere: UNEXPECTED_RESPONSE", async () => {
    const elsewhere = await serve((_req, res) => tokenAnswer(res));
    const service = await serve((_req, res) => res.writeHead(307, { Location: `${elsewhere.url}/steal` }).end());
    const error = (await rejectionOf(clientOf(service.url).webhooks.list())) as IdwalletError;
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 307, code: UNEXPECTED_RESPONSE });
    expect(service.seen.map((seen) => new URLSearchParams(seen.body).get("client_secret"))).to.deep.equal([SECRET]);
    expect(elsewhere.seen, "the other origin was never asked").to.deep.equal([]);
  });

  it("a 308 to another origin from an API call never re-sends the user's proof (nor the token) there", async () => {
    const elsewhere = await serve((_req, res) => json(res, {}));
    const service = await serve((req, res) =>
      req.url === "/v1/auth" ? tokenAnswer(res) : res.writeHead(308, { Location: `${elsewhere.url}/steal` }).end(),
    );
    const signing = clientOf(service.url).signHash({ userId: "tel:14155552671", auth: USER_PROOF, hash: HASH });
    const error = (await rejectionOf(signing)) as IdwalletError;
    expect(error).to.include({ status: 308, code: UNEXPECTED_RESPONSE });
    expect(service.seen.at(-1)?.body).to.contain(USER_PROOF);
    expect(elsewhere.seen).to.deep.equal([]);
  });

  it("a baseUrl with a path (a service mounted under a prefix) keeps the token and every call under it", async () => {
    const service = await serve((req, res) =>
      req.url === "/wallet/v1/auth" ? tokenAnswer(res) : json(res, { endpoints: [] }),
    );
    expect(await clientOf(`${service.url}/wallet/`).webhooks.list()).to.deep.equal([]);
    expect(service.seen.map((seen) => seen.url)).to.deep.equal(["/wallet/v1/auth", "/wallet/v1/webhooks"]);
  });

  it("a resolve answer with a user left out or moved is refused, never zipped onto the wrong ids", async () => {
    const user = (userId: string, n: number) => ({
      userId,
      canonicalUserId: userId,
      accountAddress: `0x${String(n).repeat(40)}`,
      ensName: null,
    });
    const [alice, bob, carol] = [user("github:alice", 1), user("github:bob", 2), user("github:carol", 3)];
    const answers = [
      [alice, carol],
      [bob, alice, carol],
      [alice, bob, carol],
    ];
    const service = await serve((req, res) =>
      req.url === "/v1/auth"
        ? tokenAnswer(res)
        : json(res, { updatedAt: "2026-01-01T00:00:00.000Z", accountType: "kernel", users: answers.shift() }),
    );
    const idwallet = clientOf(service.url);
    const asked = ["github:alice", " github:bob", "github:carol"];
    for (let i = 0; i < 2; i++) {
      const error = (await rejectionOf(idwallet.resolve(asked))) as IdwalletError;
      expect(error).to.be.instanceOf(IdwalletError);
      expect(error.code).to.equal(UNEXPECTED_RESPONSE);
    }
    expect(await idwallet.resolve(asked), "each id named as sent, spaces trimmed").to.deep.equal([alice, bob, carol]);
  });

  it("a signature answered for another hash is refused, not handed on as the signature of this one", async () => {
    const service = await serve((req, res) =>
      req.url === "/v1/auth"
        ? tokenAnswer(res)
        : json(res, {
            userId: "tel:14155552671",
            accountAddress: "0x000000000000000000000000000000000000bEEF",
            hash: `0x${"22".repeat(32)}`,
            deployed: null,
            signature: "0x1234",
            erc1271Signature: "0x1234",
          }),
    );
    const signing = clientOf(service.url).signHash({ userId: "tel:14155552671", auth: USER_PROOF, hash: HASH });
    expect(await rejectionOf(signing)).to.include({ code: UNEXPECTED_RESPONSE });
  });

  it("another request's record is refused: neither reported nor waited on as the one asked for", async () => {
    const other = "5e3c9f1a-0d2b-4c6e-8a7f-1b2c3d4e5f60";
    const service = await serve((req, res) =>
      req.url === "/v1/auth" ? tokenAnswer(res) : json(res, record(other, "included")),
    );
    const idwallet = clientOf(service.url);
    expect(await rejectionOf(idwallet.getTransaction(REQUEST_ID))).to.include({ code: UNEXPECTED_RESPONSE });
    expect(await rejectionOf(idwallet.waitForTransaction(REQUEST_ID))).to.include({ code: UNEXPECTED_RESPONSE });
  });

  it("a service that holds no poll (TX_WAIT_TIMEOUT_MS=0) is polled about once a second, not flat out", async () => {
    const service = await serve((req, res) =>
      req.url === "/v1/auth" ? tokenAnswer(res) : json(res, record(REQUEST_ID)),
    );
    const waited = await rejectionOf(clientOf(service.url).waitForTransaction(REQUEST_ID, { timeoutMs: 2500 }));
    expect(waited).to.be.instanceOf(WaitTimeoutError);
    const looks = service.seen.filter((seen) => seen.url.startsWith(`/v1/kernel/tx/${REQUEST_ID}`));
    expect(looks.length).to.be.within(3, 5);
  });

  it("a wait bound past what a timer holds (2^31 ms) is refused, not cut to the 1 ms Node would make of it", async () => {
    const service = await serve((req, res) =>
      req.url === "/v1/auth" ? tokenAnswer(res) : json(res, record(REQUEST_ID)),
    );
    const idwallet = clientOf(service.url);
    for (const timeoutMs of [2 ** 31, 30 * 86_400_000, Infinity, -1, 1.5]) {
      expect(await rejectionOf(idwallet.waitForTransaction(REQUEST_ID, { timeoutMs }))).to.be.instanceOf(RangeError);
    }
    expect(service.seen, "nothing asked").to.deep.equal([]);
  });
});
