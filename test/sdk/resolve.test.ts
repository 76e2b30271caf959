import { expect } from "chai";
import { IdwalletError, createIdwalletClient } from "@idwallet/client";
import golden from "../vectors/addresses.json";
import { type ServedTestApp, serveTestApp } from "../helpers/servedTestApp";

/** The service's RESOLVER_MAX_IDS in these tests: small, so a short list already needs several requests. */
const MAX_IDS = 3;

describe("client package: resolve (batches of the service's limit, in order, ids checked first)", () => {
  let service: ServedTestApp;
  before(async () => {
    service = await serveTestApp({ resolver: { maxIds: MAX_IDS } });
  });
  after(() => service.close());
  beforeEach(() => service.received.splice(0));

  const client = (resolveBatch: number) =>
    createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials, resolveBatch });
  const resolverCalls = () => service.receivedAt("POST", "/v1/resolver");

  it("splits a long list into requests of the service's limit and answers every id in the order given", async () => {
    // Golden vectors: each id with the kernel wallet the reference deployment gives it, several spellings of one user.
    const vectors = golden.vectors.slice(0, 8);
    const users = await client(MAX_IDS).resolve(vectors.map((vector) => vector.input));
    expect(users.map((user) => [user.userId, user.canonicalUserId, user.accountAddress])).to.deep.equal(
      // The service ignores spaces around an id (one vector has them) and echoes the rest as sent.
      vectors.map((vector) => [vector.input.trim(), vector.userId, vector.kernel]),
    );
    expect(resolverCalls().map((entry) => entry.answer?.status)).to.deep.equal([200, 200, 200]);
  });

  it("asks for the base wallets when told to", async () => {
    const vectors = golden.vectors.slice(0, 4);
    const users = await client(MAX_IDS).resolve(
      vectors.map((vector) => vector.input),
      { accountType: "base" },
    );
    expect(users.map((user) => user.accountAddress)).to.deep.equal(vectors.map((vector) => vector.base));
  });

  it("the limit is the service's: one id more per request is refused with TOO_MANY_USER_IDS", async () => {
    const ids = golden.vectors.slice(0, MAX_IDS + 1).map((vector) => vector.input);
    const error = await client(MAX_IDS + 1)
      .resolve(ids)
      .catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 400, code: "TOO_MANY_USER_IDS" });
  });

  it("refuses an id with a comma before sending anything (the service would read it as two ids)", async () => {
    const error = await client(MAX_IDS)
      .resolve(["github:alice", "github:bob,github:carol"])
      .catch((thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(TypeError);
    expect((error as Error).message).to.contain("github:bob,github:carol");
    expect(service.received).to.deep.equal([]);
  });

  it("answers an empty list without a request", async () => {
    expect(await client(MAX_IDS).resolve([])).to.deep.equal([]);
    expect(service.received).to.deep.equal([]);
  });

  it("refuses a batch size that is not a positive whole number (a zero would never end)", () => {
    for (const resolveBatch of [0, -1, 1.5, Number.NaN]) {
      expect(() => client(resolveBatch), String(resolveBatch)).to.throw(RangeError);
    }
  });
});
