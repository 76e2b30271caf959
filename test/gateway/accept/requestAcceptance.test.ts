import { expect } from "chai";
import type { SpendPolicy } from "../../../gateway/policy/spendPolicy";
import {
  IdempotencyKeyReusedError,
  commitRequest,
  findRequest,
  requestHash,
  waitForFinal,
} from "../../../gateway/accept/requestAcceptance";
import { RequestTimeoutError } from "../../../gateway/errors/apiError";
import { RequestDeadline } from "../../../gateway/accept/requestDeadline";
import { type TxRecord, isSafeRecord, isWalletRecord } from "../../../gateway/transactions/txRecord";

/** A stored wallet request (or Safe request), with only what the accept path reads. */
const record = (id: string, hash: string, status: TxRecord["status"] = "queued", accountType = "kernel") =>
  ({ id, requestHash: hash, status, accountType }) as TxRecord;

/** A policy that passes every request to its store, as one whose limits all hold. */
const openPolicy = { commit: (_request, _admission, store) => store() } as SpendPolicy;
const spend = { chain: "localhost", calls: [], account: "wallet" as const, userId: "acme:alice", checkCalls: true };
const admission = { reservedGas: 1n, limits: [] };

describe("request acceptance: the one accept path of wallet and Safe requests", () => {
  it("hashes bigints as their decimal strings, so wallet and Safe requests keep the hashes they were stored with", () => {
    expect(requestHash(["safe", 7n, { amount: 250n }])).to.equal(requestHash(["safe", "7", { amount: "250" }]));
    // Parts as the wallet path builds them (type, user id, chain, delegatecall, calls), stored by earlier versions.
    expect(
      requestHash([
        "kernel",
        "tel:14155552671",
        "localhost",
        false,
        [["0x000000000000000000000000000000000000c0de", "1000", "0xa9059cbb"]],
      ]),
    ).to.equal("7d17d0d80d8a7cc818d66e62ffd6758cfe4e76b4eafe4af1576225ebac2b7fc9");
  });

  it("commits a new request once and wakes its chain's worker; a replay answers the first record and wakes nobody", async () => {
    const woken: string[] = [];
    const deps = { policy: openPolicy, onAccepted: (chain: string) => void woken.push(chain) };
    const created = await commitRequest(
      { spend, admission, requestHash: "h1", store: async () => ({ record: record("a", "h1"), created: true }) },
      isWalletRecord,
      deps,
      new RequestDeadline(1000),
    );
    const replayed = await commitRequest(
      { spend, admission, requestHash: "h1", store: async () => ({ record: record("a", "h1"), created: false }) },
      isWalletRecord,
      deps,
      new RequestDeadline(1000),
    );
    expect([created.created, replayed.created, replayed.record.id]).to.deep.equal([true, false, "a"]);
    expect(woken).to.deep.equal(["localhost"]);
  });

  it("refuses the key of another request with 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const deps = { policy: openPolicy, onAccepted: () => expect.fail("nothing was accepted") };
    const reused = await commitRequest(
      { spend, admission, requestHash: "h2", store: async () => ({ record: record("a", "h1"), created: false }) },
      isWalletRecord,
      deps,
      new RequestDeadline(1000),
    ).catch((error: unknown) => error);
    expect(reused).to.be.instanceOf(IdempotencyKeyReusedError);
    expect([(reused as IdempotencyKeyReusedError).status, (reused as IdempotencyKeyReusedError).code]).to.deep.equal([
      409,
      "IDEMPOTENCY_KEY_REUSED",
    ]);
  });

  it("refuses with 409 a key whose earlier request is of another kind (a Safe request's key replayed as a wallet's)", async () => {
    const deps = { policy: openPolicy, onAccepted: () => expect.fail("nothing was accepted") };
    const safeRequest = record("a", "h1", "queued", "safe");
    const asWallet = await commitRequest(
      { spend, admission, requestHash: "h1", store: async () => ({ record: safeRequest, created: false }) },
      isWalletRecord,
      deps,
      new RequestDeadline(1000),
    ).catch((error: unknown) => error);
    expect(asWallet).to.be.instanceOf(IdempotencyKeyReusedError);
    const asSafe = await commitRequest(
      { spend, admission, requestHash: "h1", store: async () => ({ record: safeRequest, created: false }) },
      isSafeRecord,
      deps,
      new RequestDeadline(1000),
    );
    expect([asSafe.created, asSafe.record.id]).to.deep.equal([false, "a"]);
  });

  it("stores nothing once the request's deadline has answered", async () => {
    const deadline = new RequestDeadline(1000);
    deadline.expire();
    let stored = false;
    const late = await commitRequest(
      {
        spend,
        admission,
        requestHash: "h1",
        store: async () => {
          stored = true;
          return { record: record("a", "h1"), created: true };
        },
      },
      isWalletRecord,
      { policy: openPolicy, onAccepted: () => expect.fail("nothing was accepted") },
      deadline,
    ).catch((error: unknown) => error);
    expect(late).to.be.instanceOf(RequestTimeoutError);
    expect(stored).to.equal(false);
  });

  it("looks up only ids shaped as request ids, and waits until a request is final", async () => {
    const finds: string[] = [];
    const states = [record("00000000-0000-4000-8000-000000000000", "h", "submitted"), record("x", "h", "included")];
    const repository = {
      find: async (id: string) => {
        finds.push(id);
        return states.shift();
      },
    };
    expect(await findRequest("../../etc/passwd", repository)).to.equal(undefined);
    const found = (await findRequest("00000000-0000-4000-8000-000000000000", repository))!;
    const final = await waitForFinal(found, repository, { timeoutMs: 5000, signal: new AbortController().signal });
    expect(final.status).to.equal("included");
    expect(finds).to.deep.equal(["00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000"]);
  });
});
