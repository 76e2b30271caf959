import { expect } from "chai";
import type { IncomingHttpHeaders } from "node:http";
import { WebhookVerificationError, createIdwalletClient, verifyWebhook } from "@idwallet/client";
import { newEventId } from "../../gateway/webhooks/webhookEndpoint";
import { signedHeaders } from "../../gateway/webhooks/webhookSigning";
import { testEventBody } from "../../gateway/webhooks/testEvents";
import { closeAll, listenOn } from "../helpers/fastPathPair";
import { type ServedTestApp, serveTestApp } from "../helpers/servedTestApp";

/** What every delivery body is (Standard Webhooks' payload structure), whatever its type. */
type Delivery = { type: string; timestamp: string; data: Record<string, unknown> };

/** A delivery as the service makes it: its test event's body, signed by its own signer with `secrets`, at `at`. */
function delivery(endpointId: string, secrets: readonly string[], at = new Date()) {
  const eventId = newEventId();
  const body = testEventBody(endpointId)(eventId, at);
  return { eventId, body, headers: signedHeaders(secrets, eventId, body, at) };
}

/** What a Node receiver got: the raw body and IncomingHttpHeaders of each POST. */
async function nodeReceiver() {
  const got: { body: Buffer; headers: IncomingHttpHeaders }[] = [];
  const listening = await listenOn((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      got.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  return { url: `http://127.0.0.1:${listening.port}/hooks`, got, close: () => closeAll([listening]) };
}

describe("client package: verifyWebhook (the service's own signer; Node and fetch headers; tampering refused)", () => {
  let service: ServedTestApp;
  let endpoint: { id: string; secret: string };
  before(async () => {
    service = await serveTestApp();
    const idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
    endpoint = await idwallet.webhooks.create({ url: "https://hooks.example.com/idwallet" });
    expect(endpoint.secret).to.match(/^whsec_/);
  });
  after(() => service.close());

  const refusal = (run: () => unknown) => {
    expect(run).to.throw(WebhookVerificationError);
  };

  it("accepts a delivery received by a Node server (raw body, IncomingHttpHeaders) and answers its event", async () => {
    const receiver = await nodeReceiver();
    try {
      const sent = delivery(endpoint.id, [endpoint.secret]);
      await fetch(receiver.url, { method: "POST", headers: sent.headers, body: sent.body });
      const [{ body, headers }] = receiver.got as [(typeof receiver.got)[number]];
      const event: Delivery = verifyWebhook(body, headers, endpoint.secret);
      expect(event).to.deep.equal(JSON.parse(sent.body));
      expect(event.type).to.equal("webhook.test");
      expect(event.data).to.include({ endpointId: endpoint.id, eventId: sent.eventId });
    } finally {
      await receiver.close();
    }
  });

  it("accepts fetch Headers (a fetch-style receiver's Request) and a plain record with any header case", async () => {
    const sent = delivery(endpoint.id, [endpoint.secret]);
    const request = new Request("https://receiver.example/hooks", {
      method: "POST",
      headers: sent.headers,
      body: sent.body,
    });
    const fromFetch: Delivery = verifyWebhook(await request.text(), request.headers, endpoint.secret);
    expect(fromFetch.data).to.include({ eventId: sent.eventId });
    const shouting = Object.fromEntries(
      Object.entries(sent.headers).map(([name, value]) => [name.toUpperCase(), value]),
    );
    const fromRecord: Delivery = verifyWebhook(sent.body, shouting, endpoint.secret);
    expect(fromRecord.data).to.include({ eventId: sent.eventId });
  });

  it("accepts a delivery signed during a secret rotation with either secret", () => {
    const next = "whsec_" + Buffer.from("a new secret of thirty-two bytes").toString("base64");
    const sent = delivery(endpoint.id, [endpoint.secret, next]);
    for (const secret of [endpoint.secret, next]) {
      expect((verifyWebhook(sent.body, sent.headers, secret) as Delivery).data).to.include({ eventId: sent.eventId });
    }
  });

  it("an attacker who changes the body (one character) is refused", () => {
    const sent = delivery(endpoint.id, [endpoint.secret]);
    const tampered = sent.body.replace("A test event", "A test evenT");
    expect(tampered).to.not.equal(sent.body);
    refusal(() => verifyWebhook(tampered, sent.headers, endpoint.secret));
  });

  it("an attacker who signs with a secret of their own is refused", () => {
    const forged = delivery(endpoint.id, [
      "whsec_" + Buffer.from("the attacker's own secret 32 byt").toString("base64"),
    ]);
    refusal(() => verifyWebhook(forged.body, forged.headers, endpoint.secret));
  });

  it("an attacker replaying a delivery captured ten minutes ago is refused (timestamp too old)", () => {
    const captured = delivery(endpoint.id, [endpoint.secret], new Date(Date.now() - 10 * 60_000));
    refusal(() => verifyWebhook(captured.body, captured.headers, endpoint.secret));
  });

  it("an attacker who moves a signature onto another event id is refused", () => {
    const sent = delivery(endpoint.id, [endpoint.secret]);
    refusal(() => verifyWebhook(sent.body, { ...sent.headers, "webhook-id": newEventId() }, endpoint.secret));
  });

  it("an outsider replaying a captured delivery inside the five minutes gets it verified again: the receiver drops repeats by webhook-id", () => {
    const sent = delivery(endpoint.id, [endpoint.secret]);
    const first = verifyWebhook(sent.body, sent.headers, endpoint.secret);
    // Stateless by design (as every Standard Webhooks library): docs/client.md tells the receiver to keep the ids.
    expect(verifyWebhook(sent.body, sent.headers, endpoint.secret)).to.deep.equal(first);
    expect(sent.headers["webhook-id"]).to.equal(sent.eventId);
  });

  it("a body with `__proto__` and a duplicate key (signed by a thief of the secret) pollutes no prototype", () => {
    const body = '{"type":"webhook.test","type":"transaction.included","__proto__":{"polluted":true},"data":{}}';
    const signed = signedHeaders([endpoint.secret], newEventId(), body, new Date());
    const event = verifyWebhook(body, signed, endpoint.secret) as unknown as Record<string, unknown>;
    expect(event.type, "the last duplicate, as JSON.parse reads it").to.equal("transaction.included");
    expect(Object.getPrototypeOf(event)).to.equal(Object.prototype);
    expect(Object.hasOwn(event, "__proto__")).to.equal(true);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it("a request without the signature headers is refused", () => {
    const sent = delivery(endpoint.id, [endpoint.secret]);
    refusal(() => verifyWebhook(sent.body, {}, endpoint.secret));
    refusal(() => verifyWebhook(sent.body, { ...sent.headers, "webhook-signature": undefined }, endpoint.secret));
  });
});
