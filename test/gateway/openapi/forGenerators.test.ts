import { expect } from "chai";
import request from "supertest";
import { ZodType } from "zod";
import { ERROR_CODES, OAUTH_ERRORS } from "../../../gateway/errors/errorCodes";
import { documentedCodes } from "../../../gateway/openapi/problem.schema";
import { buildOpenApiRegistry } from "../../../gateway/routes/document";
import { WEBHOOK_EVENT_BODIES } from "../../../gateway/webhooks/webhookEvents.schema";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "../../../gateway/webhooks/webhookEvents";
import { buildTestApp } from "../../helpers/testApp";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: { type?: string | string[]; enum?: unknown[] };
}
interface Operation {
  readonly operationId?: string;
  readonly parameters?: Parameter[];
  readonly requestBody?: {
    required?: boolean;
    content: Record<string, { schema: { $ref?: string }; example?: unknown }>;
  };
}
type Items = Record<string, Record<string, Operation>>;
interface Document {
  readonly servers: { url: string }[];
  readonly paths: Items;
  readonly webhooks: Items;
  readonly components: { schemas: Record<string, Record<string, unknown>> };
}

/** Every operation of `items` (paths or webhooks) as "METHOD name". */
const operations = (items: Items): [string, Operation][] =>
  Object.entries(items).flatMap(([name, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${name}`, operation]),
  );

/** The component a `$ref` names. */
const component = (doc: Document, ref: string | undefined) => doc.components.schemas[ref!.split("/").at(-1)!]!;

describe("API reference for client generators: operation ids, servers, webhooks, codes, parameter types", () => {
  let built: ReturnType<typeof buildTestApp>;
  let doc: Document;

  before(async () => {
    built = buildTestApp();
    doc = (await request(built.app).get("/openapi.json").expect(200)).body as Document;
  });
  after(() => built.close());

  it("names every operation, the webhooks' too, with a unique lowerCamelCase operationId", () => {
    const all = [...operations(doc.paths), ...operations(doc.webhooks)];
    expect(all.length).to.be.greaterThan(30);
    const missing = all.filter(([, operation]) => operation.operationId === undefined).map(([name]) => name);
    expect(missing, "operations without an operationId").to.deep.equal([]);
    const ids = all.map(([, operation]) => operation.operationId!);
    for (const id of ids) expect(id).to.match(/^[a-z][a-zA-Z0-9]+$/);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      "operationIds used twice",
    ).to.deep.equal([]);
    expect(doc.paths["/v1/kernel/tx/{id}"]!.get!.operationId).to.equal("getKernelTransaction");
  });

  it("has one server: PUBLIC_URL when set (without a trailing slash), else `/`, the document's own origin", async () => {
    expect(doc.servers).to.deep.equal([{ url: "/" }]);
    const reachable = buildTestApp({ publicUrl: "https://wallet.example.com/" });
    const served = await request(reachable.app).get("/openapi.json").expect(200);
    expect(served.body.servers).to.deep.equal([{ url: "https://wallet.example.com" }]);
    reachable.close();
  });

  it("a request's Host or X-Forwarded-Host cannot put another server in the document (no poisoned Try it)", async () => {
    const forged = await request(built.app)
      .get("/openapi.json")
      .set({ Host: "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http" })
      .expect(200);
    expect(forged.body.servers).to.deep.equal([{ url: "/" }]);
  });

  it("documents one webhook per event type delivered, its body the schema it is built by, signed by the headers", () => {
    const types: (keyof typeof WEBHOOK_EVENT_BODIES)[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];
    expect(Object.keys(doc.webhooks).sort()).to.deep.equal([...types].sort());
    const refs: Record<string, string> = {};
    for (const type of types) {
      const operation = doc.webhooks[type]!.post!;
      const media = operation.requestBody!.content["application/json"]!;
      expect(operation.requestBody!.required, type).to.equal(true);
      const body = component(doc, media.schema.$ref) as { properties: { type: { enum: string[] } } };
      expect(body.properties.type.enum, `${type}: a literal type, so a union narrows by it`).to.deep.equal([type]);
      const headers = operation.parameters!.filter((p) => p.in === "header" && p.required).map((p) => p.name);
      expect(headers, type).to.deep.equal(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const example = WEBHOOK_EVENT_BODIES[type].safeParse(media.example);
      expect(example.success, `${type} example: ${example.error?.message}`).to.be.true;
      refs[type] = media.schema.$ref!;
    }
    expect(component(doc, "WebhookEvent")).to.deep.equal({
      oneOf: Object.values(refs).map(($ref) => ({ $ref })),
      discriminator: { propertyName: "type", mapping: refs },
    });
  });

  it("gives Problem.code as the enum of the codes answered (errorCodes.ts) and POST /v1/auth's RFC 6749 errors", () => {
    const code = (component(doc, "Problem") as { properties: { code: { enum: string[] } } }).properties.code.enum;
    const answered = ERROR_CODES.filter((entry) => entry.status !== null).map((entry) => entry.code);
    expect(code).to.include.members(answered);
    expect(code).to.include.members(OAUTH_ERRORS.map((error) => error.toUpperCase()));
    // Nothing else: a failed request's `error.code` (status null) is never a problem's.
    expect(code.filter((c) => !answered.includes(c as never))).to.deep.equal([
      "INVALID_CLIENT",
      "UNSUPPORTED_GRANT_TYPE",
    ]);
    for (const definition of buildOpenApiRegistry().definitions) {
      if (definition.type !== "route") continue;
      for (const answer of Object.values(definition.route.responses)) {
        for (const documented of documentedCodes(answer) ?? []) expect(code).to.include(documented.toUpperCase());
      }
    }
  });

  it("types each query and path parameter by what it means: `wait` a boolean, no boolean as text, none nullable", () => {
    const waits: string[] = [];
    for (const [name, operation] of operations(doc.paths)) {
      for (const parameter of operation.parameters ?? []) {
        const where = `${name} ${parameter.in} ${parameter.name}`;
        expect([parameter.schema.type].flat(), where).to.not.include("null");
        expect([...(parameter.schema.enum ?? [])].sort(), where).to.not.deep.equal(["false", "true"]);
        if (parameter.name === "wait") {
          expect(parameter.schema.type, where).to.equal("boolean");
          waits.push(name);
        }
      }
    }
    expect(waits).to.have.length(3);
  });

  it("marks a request body required exactly where the route refuses to go without one", () => {
    const optional: string[] = [];
    for (const definition of buildOpenApiRegistry().definitions) {
      if (definition.type !== "route" || !definition.route.request?.body) continue;
      const { method, path, request: req } = definition.route;
      const name = `${method.toUpperCase()} ${path}`;
      const schemas = Object.values(req.body!.content).map((media) =>
        media && "schema" in media ? media.schema : undefined,
      );
      const refusesEmpty = schemas.every((schema) => schema instanceof ZodType && !schema.safeParse({}).success);
      expect(req.body!.required === true, name).to.equal(refusesEmpty);
      if (!refusesEmpty) optional.push(name);
    }
    // Client credentials may come as HTTP Basic alone; a first page of Safes needs no input.
    expect(optional).to.deep.equal(["POST /v1/auth", "POST /v1/{chain}/accounts"]);
  });

  it("still takes `wait` as exactly the words true and false, refusing any other value as before", async () => {
    const { token } = await built.appWithToken("waiting app");
    const unknown = "00000000-0000-4000-8000-000000000000";
    const safeTx = `/v1/localhost/account/0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E/tx/${unknown}`;
    const get = (path: string) => request(built.app).get(path).set("Authorization", `Bearer ${token}`);
    for (const path of [`/v1/kernel/tx/${unknown}`, `/v1/base/tx/${unknown}`, safeTx]) {
      const plain = await get(path);
      for (const wait of ["true", "false"]) {
        const answer = await get(`${path}?wait=${wait}`);
        expect([answer.status, answer.body.code], `${path} wait=${wait}`).to.deep.equal([
          plain.status,
          plain.body.code,
        ]);
      }
      for (const wait of ["1", "0", "yes", "TRUE", "maybe", ""]) {
        const answer = await get(`${path}?wait=${wait}`);
        expect(answer.status, `${path} wait=${wait}`).to.equal(400);
        expect(answer.body).to.deep.include({ code: "INVALID_REQUEST", title: "Invalid request" });
        expect(answer.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/wait"]);
      }
    }
  });
});
