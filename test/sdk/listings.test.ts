import { expect } from "chai";
import { type IdwalletClient, type UserLogin, createIdwalletClient } from "@idwallet/client";
import { type ServedTestApp, idleChain, serveTestApp } from "../helpers/servedTestApp";

const TARGET = "0x000000000000000000000000000000000000dEaD";

describe("client package: listTransactions / allTransactions (the app's own requests, page by page)", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let alice: UserLogin;
  let bob: UserLogin;
  const sent: { id: string; createdAt: string }[] = [];
  /** The service's order: newest first, requests of one millisecond by id, descending. */
  const newestFirst = (ids: readonly string[]) =>
    sent
      .filter((request) => ids.includes(request.id))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map((request) => request.id);
  before(async () => {
    service = await serveTestApp({}, { chains: new Map([["localhost", idleChain()]]), txChains: ["localhost"] });
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
    alice = await service.loginPhone(idwallet, "+14155552671");
    bob = await service.loginPhone(idwallet, "+14155552672");
    for (const user of [alice, bob, alice, alice, bob]) {
      const record = await idwallet.sendTransaction({
        userId: user.userId,
        chain: "localhost",
        auth: user.userToken,
        to: TARGET,
      });
      sent.push({ id: record.id, createdAt: record.createdAt });
    }
  });
  after(() => service.close());

  it("pages through every request newest first, each once, following nextCursor to the end", async () => {
    const first = await idwallet.listTransactions({ limit: 2 });
    expect(first.items).to.have.length(2);
    expect(first.nextCursor).to.be.a("string");
    const all: string[] = [];
    for await (const request of idwallet.allTransactions({ limit: 2 })) all.push(request.id);
    expect(all).to.deep.equal(newestFirst(sent.map((request) => request.id)));
    expect(service.receivedAt("GET", "/v1/kernel/tx").length).to.be.greaterThan(3);
  });

  it("filters by user id in any spelling of it", async () => {
    const ids: string[] = [];
    for await (const request of idwallet.allTransactions({ userId: "tel:+1 (415) 555-2672", limit: 1 })) {
      ids.push(request.id);
    }
    expect(ids).to.deep.equal(newestFirst([sent[1]!.id, sent[4]!.id]));
  });

  it("a cursor used with other filters is refused with the service's code", async () => {
    const page = await idwallet.listTransactions({ limit: 1 });
    const refused = await idwallet
      .listTransactions({ limit: 1, cursor: page.nextCursor!, userId: alice.userId })
      .catch((error: unknown) => error);
    expect(refused).to.include({ name: "IdwalletError", status: 400, code: "INVALID_CURSOR" });
  });

  it("another app's client lists none of this app's requests, not even by the user's id", async () => {
    const { app, clientSecret } = await service.appWithToken("another app", true);
    const other = createIdwalletClient({ baseUrl: service.baseUrl, clientId: app.clientId, clientSecret });
    expect((await other.listTransactions({ userId: alice.userId })).items).to.deep.equal([]);
    expect((await other.listTransactions()).items).to.deep.equal([]);
  });
});
