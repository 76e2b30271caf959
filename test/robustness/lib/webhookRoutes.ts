import fc from "fast-check";
import { WEBHOOK_EVENT_TYPES } from "../../../gateway/webhooks/webhookEvents";
import { anyText, field, hexBytes, shapedBody, wellFormed } from "./badInputs";
import type { Route } from "./routes";

const MB = 1024 * 1024;

/** Webhook URLs: public https ones, and every way of pointing one somewhere it must not go. */
const urlLike: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "https://hooks.example.com/idwallet",
    "https://example.com",
    "http://example.com/",
    "https://10.0.0.1/x",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[fd00::1]/",
    "http://127.0.0.1:9/",
    "https://2130706433/",
    "https://0x7f.1/",
    "https://localhost./",
    "https://user:pass@example.com/",
    "https://example.com/#frag",
    "ftp://example.com/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "//example.com/",
    "",
  ),
  anyText(40).map((text) => `https://${text}`),
  fc.integer({ min: 2030, max: 2060 }).map((n) => `https://example.com/${"a".repeat(n)}`),
  anyText(60),
);

/** Event lists: valid ones, unknown names, repeats, too many. */
const eventsLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.subarray([...WEBHOOK_EVENT_TYPES]),
  fc.array(fc.constantFrom(...WEBHOOK_EVENT_TYPES, "webhook.test", "transaction.*", "*", ""), { maxLength: 8 }),
  fc.constant([...WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES[0]]),
);

/** Endpoint ids other than the seeded one (which the other inputs use): well-formed unknown ones, odd ones, anything. */
const idLike: fc.Arbitrary<string> = fc
  .oneof(
    hexBytes(16).map((hex) => `ep_${hex.slice(2)}`),
    fc.constantFrom("ep_", "EP_0", " ", "x".repeat(101), "0", "..", "%"),
    anyText(30),
  )
  .map((id) => encodeURIComponent(wellFormed(id)));

/** The app's webhook endpoints (issue 21): register, list, remove. */
export const WEBHOOK_ROUTES: readonly Route[] = [
  {
    name: "POST /v1/webhooks",
    method: "POST",
    template: "/v1/webhooks",
    params: () => ({}),
    auth: "bearer",
    encoding: "json",
    body: () => shapedBody({ url: field(urlLike), events: field(eventsLike) }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "GET /v1/webhooks",
    method: "GET",
    template: "/v1/webhooks",
    params: () => ({}),
    auth: "bearer",
    query: fc.record({ status: anyText(10) }, { requiredKeys: [] }),
    bodyLimit: MB,
    rules: {},
  },
  {
    name: "DELETE /v1/webhooks/{id}",
    method: "DELETE",
    template: "/v1/webhooks/{id}",
    params: ({ seeded }) => ({ id: seeded.webhookId }),
    auth: "bearer",
    shapedParams: fc.record({ id: idLike }),
    bodyLimit: MB,
    rules: {},
  },
];
