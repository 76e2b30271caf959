import { expect } from "chai";
import request from "supertest";
import { ZodType } from "zod";
import { buildOpenApiRegistry } from "../../../gateway/routes/document";
import { createExpressApp } from "../../../gateway/app";
import { mountedRoutes } from "../../helpers/mountedRoutes";
import { buildTestApp } from "../../helpers/testApp";

/** The groups of the reference (issue 23), in the order /docs shows them. */
const TAGS = [
  "Wallets",
  "Transactions",
  "Auth",
  "Phone login",
  "ENS gateway",
  "Safe accounts",
  "Dust",
  "Webhooks",
  "Operations",
];

/**
 * Routes the app mounts that the reference leaves out on purpose: the reference itself, its document and the page
 * and script that render it (the Swagger UI assets under /docs/assets are a static middleware, not routes).
 */
const UNDOCUMENTED = ["GET /openapi.json", "GET /docs", "GET /docs/init.js"];

/**
 * Operations the document has that no express router serves: the CCIP-read gateway, answered by the HTTP server
 * before the express app (gateway/server.ts), and tested by its own suites.
 */
const SERVED_OUTSIDE_EXPRESS = ["GET /ccip/{sender}/{data}.json", "POST /ccip"];

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Operation {
  readonly tags?: string[];
  readonly requestBody?: { content: Record<string, MediaType> };
  readonly responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface MediaType {
  readonly schema?: { $ref?: string; example?: unknown };
  readonly example?: unknown;
  readonly examples?: unknown;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly tags: { name: string; description?: string }[];
  readonly components: { schemas: Record<string, { example?: unknown }> };
}

/** Every operation of the document as "METHOD /path". */
const operations = (doc: Document): [string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );

describe("API reference: GET /openapi.json and /docs", () => {
  let built: ReturnType<typeof buildTestApp>;
  let doc: Document;
  /** The same document untyped, as a client reads it. */
  let raw: request.Response["body"];

  before(async () => {
    built = buildTestApp();
    raw = (await request(built.app).get("/openapi.json").expect(200)).body;
    doc = raw as Document;
  });
  after(() => built.close());

  it("GET /openapi.json documents the endpoints from the zod schemas, and /docs renders it from local assets", async () => {
    const { app } = built;
    expect(raw.openapi).to.equal("3.1.0");
    expect(raw.components.schemas.CreateSafeRequest.required).to.deep.equal(["signers"]);
    expect(raw.components.schemas.CreateWebhookRequest).to.include({ additionalProperties: false });
    expect(raw.components.schemas.CreateWebhookRequest.required).to.deep.equal(["url"]);
    // The secret is in the registration's answer only, never in a listed endpoint.
    expect(raw.components.schemas.CreatedWebhook.required).to.include("secret");
    expect(raw.components.schemas.WebhookEndpoint.properties).to.not.have.property("secret");
    expect(raw.components.schemas.KernelTxRequest.required).to.include.members([
      "userId",
      "chain",
      "to",
      "value",
      "data",
      "auth",
    ]);
    expect(raw.paths["/v1/base/tx"].post.deprecated).to.equal(true);
    for (const path of ["/v1/kernel/tx", "/v1/base/tx"]) {
      expect(raw.paths[path].post.responses["403"].description, path).to.include("CALL_NOT_ALLOWED");
    }
    expect(raw.components.schemas.Problem.properties.calls.items.properties.reason.enum).to.deep.equal([
      "SELF_CALL",
      "OWNER_ACCOUNT_CALL",
      "DELEGATECALL_NOT_GRANTED",
      "DELEGATECALL",
      "CONFIGURATION_CALL",
    ]);
    expect(raw.paths["/v1/{chain}/account/{address}/custom"].post.responses["403"].description).to.include(
      "SAFE_CALL_NOT_ALLOWED",
    );
    expect(raw.components.schemas).to.have.property("ResolverRequest");
    expect(raw.components.schemas.ResolverRequest.required).to.include("userIds");
    // The spec's fields, and the additions: each answer names its id's ENS name, or null.
    const user = raw.components.schemas.ResolverResponse.properties.users.items;
    expect(user.required).to.include.members(["userId", "accountAddress", "canonicalUserId", "ensName"]);
    expect(user.properties.ensName.type).to.deep.equal(["string", "null"]);
    const page = await request(app).get("/docs").expect(200);
    expect(page.text).to.include("/docs/assets/swagger-ui-bundle.js");
    expect(page.text).to.not.match(/https?:\/\//);
    await request(app).get("/docs/assets/swagger-ui-bundle.js").expect(200);
  });

  it("documents every route the app mounts and mounts every route it documents (the CCIP gateway apart)", () => {
    // The express app's routers: POST /v1/resolver's fast path in front of it answers only what they do.
    const mounted = mountedRoutes(createExpressApp(built.deps));
    const documented = operations(doc).map(([name]) => name);
    expect(mounted.length, "routes found in the app").to.be.greaterThan(20);
    const undocumented = mounted.filter((route) => !documented.includes(route) && !UNDOCUMENTED.includes(route));
    const unmounted = documented.filter((op) => !mounted.includes(op) && !SERVED_OUTSIDE_EXPRESS.includes(op));
    expect(undocumented, "mounted but not in the document").to.deep.equal([]);
    expect(unmounted, "in the document but not mounted").to.deep.equal([]);
    // The exceptions stay true: the left-out routes are mounted and undocumented, the CCIP gateway documented.
    expect(mounted).to.include.members(UNDOCUMENTED);
    expect(documented).to.not.include.members(UNDOCUMENTED);
    expect(documented).to.include.members(SERVED_OUTSIDE_EXPRESS);
    expect(new Set(mounted).size, "no route mounted twice").to.equal(mounted.length);
  });

  it("groups every operation under one of the declared tags, each declared once with a description", () => {
    expect(doc.tags.map((tag) => tag.name)).to.deep.equal(TAGS);
    for (const tag of doc.tags) expect(tag.description, tag.name).to.be.a("string").and.not.equal("");
    const used = new Set<string>();
    for (const [name, operation] of operations(doc)) {
      expect(operation.tags, name).to.be.an("array").that.is.not.empty;
      for (const tag of operation.tags!) {
        expect(TAGS, `${name}: tag ${tag}`).to.include(tag);
        used.add(tag);
      }
    }
    expect([...used].sort(), "every tag has operations").to.deep.equal([...TAGS].sort());
  });

  it("has an example of every request body and every success answer, and an answer example for every operation", () => {
    const schemaExample = (media: MediaType) =>
      media.schema?.$ref
        ? doc.components.schemas[media.schema.$ref.split("/").at(-1)!]?.example
        : media.schema?.example;
    for (const [name, operation] of operations(doc)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        expect(media.example ?? media.examples, `${name}: request example (${type})`).to.not.equal(undefined);
      }
      const answers = Object.entries(operation.responses);
      for (const [status, answer] of answers.filter(([status]) => status.startsWith("2"))) {
        for (const [type, media] of Object.entries(answer.content ?? {})) {
          expect(media.example ?? media.examples, `${name}: ${status} example (${type})`).to.not.equal(undefined);
        }
      }
      // An answer without a body (204) still has its error answers' example.
      const withExample = answers.filter(([, answer]) =>
        Object.values(answer.content ?? {}).some((m) => (m.example ?? m.examples ?? schemaExample(m)) !== undefined),
      );
      expect(withExample, `${name}: an answer example`).to.not.be.empty;
    }
  });

  it("its examples are valid: each request and answer example parses with the zod schema it illustrates", () => {
    let checked = 0;
    for (const definition of buildOpenApiRegistry().definitions) {
      if (definition.type !== "route") continue;
      const { method, path, request: req, responses } = definition.route;
      const contents = [
        ["request", req?.body?.content ?? {}] as const,
        ...Object.entries(responses).map(
          ([status, answer]) => [status, "content" in answer ? answer.content : {}] as const,
        ),
      ];
      for (const [what, content] of contents) {
        for (const [type, media] of Object.entries(content ?? {})) {
          if (!media || !("schema" in media) || !(media.schema instanceof ZodType) || media.example === undefined)
            continue;
          const parsed = media.schema.safeParse(media.example);
          expect(parsed.success, `${method} ${path} ${what} (${type}): ${parsed.error?.message}`).to.be.true;
          // An answer is what the service writes: no field the schema does not know (zod would drop it silently).
          if (what !== "request") expect(parsed.data, `${method} ${path} ${what}`).to.deep.equal(media.example);
          checked++;
        }
      }
    }
    expect(checked, "examples checked").to.be.greaterThan(40);
  });
});
