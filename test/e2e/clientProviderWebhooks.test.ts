import {
  createIdwalletProvider,
  type IdwalletClient,
  type SafeTxStatus,
  type TxStatus,
  type UserLogin,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "@idwallet/client";
import { expect } from "chai";
import { Wallet } from "ethers";
import { encodeFunctionData, type Hex } from "viem";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { TestToken__factory } from "../../typechain-types";
import { startTestStack } from "../helpers/localStack";
import { clientPhoneLogin, demoAppClient } from "../helpers/packageClient";
import { startWebhookReceiver } from "../helpers/webhookReceiver";

/** What verifyWebhook answers: the package's union, generated from the `webhooks` section of the OpenAPI document. */
type ReceivedEvent = WebhookEvent;

/**
 * A receiver's handling, narrowed by `type`: each branch compiles only if that event's `data` is the record its type
 * says (a request's for `transaction.*`, a Safe request's for `safe.*`).
 */
function whatHappened(event: ReceivedEvent) {
  switch (event.type) {
    case "transaction.submitted":
    case "transaction.included":
    case "transaction.failed": {
      const request: TxStatus = event.data;
      // @ts-expect-error -- a wallet request's record has no Safe address
      void event.data.safe;
      return { kind: "wallet", id: request.id, status: request.status, hash: request.transactionHash } as const;
    }
    case "safe.submitted":
    case "safe.included":
    case "safe.failed": {
      const request: SafeTxStatus = event.data;
      return { kind: "safe", id: request.txUuid, status: request.status, hash: request.transactionHash } as const;
    }
    default:
      return { kind: "other", type: event.type } as const;
  }
}

describe("@idwallet/client's verifyWebhook (e2e: a real receiver of the events of a transaction sent through the provider)", function () {
  this.timeout(180_000);
  let stack: LocalStack;
  let client: IdwalletClient;
  let login: UserLogin;
  const receivers: { close(): Promise<unknown> }[] = [];

  before(async () => {
    stack = await startTestStack(undefined, { env: { WEBHOOK_POLL_MS: "50" } });
    client = demoAppClient(stack);
    login = await clientPhoneLogin(stack, client, "+14155550170");
  });
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  after(() => stack?.close());

  it("an endpoint registered with client.webhooks.create gets the transaction's events, verified and narrowed; a tampered one throws", async () => {
    const hooks = await startWebhookReceiver();
    receivers.push(hooks);
    const endpoint = await client.webhooks.create({ url: hooks.url });
    expect(endpoint.secret).to.match(/^whsec_/);
    expect((await client.webhooks.list()).map((listed) => listed.id)).to.deep.equal([endpoint.id]);

    const provider = createIdwalletProvider({
      client,
      userId: login.userId,
      auth: login.userToken,
      chain: "localhost",
    });
    const recipient = Wallet.createRandom().address as Hex;
    const data = encodeFunctionData({ abi: TestToken__factory.abi, functionName: "mint", args: [recipient, 3n] });
    const hash = (await provider.request({
      method: "eth_sendTransaction",
      params: [{ to: stack.demoTokens.erc20, data }],
    })) as Hex;
    await hooks.until((got) => got.some((hook) => hook.event.type === "transaction.included"), "the included event");

    // Verified as a receiver does: the raw body, the headers as Node gives them, the secret shown at registration.
    const verified: ReceivedEvent[] = hooks.received.map((hook) =>
      verifyWebhook(hook.body, hook.headers, endpoint.secret),
    );
    const [submitted, included] = verified.map(whatHappened);
    expect(verified).to.have.length(2);
    expect(submitted).to.include({ kind: "wallet", status: "submitted" });
    expect(included).to.include({ kind: "wallet", status: "included", hash });
    // The included event's data is the request's record, as the client reads it.
    if (included?.kind !== "wallet") return expect.fail("the second event is not about a wallet request");
    const request = await client.getTransaction(included.id);
    expect(request).to.include({ transactionHash: hash, success: true });
    expect(verified[1]!.data).to.deep.equal(request);

    // The same delivery with the headers as fetch gives them verifies too.
    const last = hooks.received.at(-1)!;
    const fetchHeaders = new Headers(
      Object.entries(last.headers).map(([name, value]): [string, string] => [name, String(value)]),
    );
    expect(verifyWebhook(last.body, fetchHeaders, endpoint.secret)).to.deep.equal(verified[1]);

    // A body altered in transit, a replayed old timestamp, or another secret: WebhookVerificationError.
    const tampered = last.body.replace(hash.slice(2), "00".repeat(32));
    expect(tampered).to.not.equal(last.body);
    expect(() => verifyWebhook(tampered, last.headers, endpoint.secret)).to.throw(WebhookVerificationError);
    const stale = { ...last.headers, "webhook-timestamp": String(Math.floor(Date.now() / 1000) - 3600) };
    expect(() => verifyWebhook(last.body, stale, endpoint.secret)).to.throw(WebhookVerificationError);
    const otherSecret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    expect(() => verifyWebhook(last.body, last.headers, otherSecret)).to.throw(WebhookVerificationError);

    // Deleted: the next transaction tells this endpoint nothing.
    await client.webhooks.delete(endpoint.id);
    expect(await client.webhooks.list()).to.deep.equal([]);
    const count = hooks.received.length;
    await provider.request({ method: "eth_sendTransaction", params: [{ to: stack.demoTokens.erc20, data }] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received).to.have.length(count);
  });
});
