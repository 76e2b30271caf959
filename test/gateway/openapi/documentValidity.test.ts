import { createConfig, lintFromString } from "@redocly/openapi-core";
import { expect } from "chai";
import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApiDocument } from "../../../gateway/routes/document";

/**
 * Redocly's recommended rules that this document departs from, each on purpose. Every other rule of the set, the
 * OpenAPI 3.1 structure check among them, must pass without a warning.
 */
const DEPARTURES = {
  // The original interface's Safe paths (`/v1/{chain}/account`) have the shape of `/v1/webhooks/{id}`; they answer
  // other methods, and the routers match the literal paths first.
  "no-ambiguous-paths": "off",
  // GET /v1/networks and GET /health take no input and answer no 4xx.
  "operation-4xx-response": "off",
  // `WebhookEvent` (any event, told apart by `type`) is for receivers' code: no operation refers to it.
  "no-unused-components": "off",
} as const;

/** Runs `work` with everything written to the console kept instead of shown; returns what it wrote. */
async function capturingConsole<T>(work: () => Promise<T>): Promise<{ result: T; written: string[] }> {
  const written: string[] = [];
  const methods = ["log", "info", "warn", "error", "debug"] as const;
  const kept = methods.map((method) => console[method]);
  for (const method of methods) console[method] = (...args: unknown[]) => void written.push(args.join(" "));
  try {
    return { result: await work(), written };
  } finally {
    methods.forEach((method, i) => (console[method] = kept[i]!));
  }
}

describe("API reference: a valid OpenAPI 3.1 document that client generators take without a warning", () => {
  const document = buildOpenApiDocument();

  it("validates as OpenAPI 3.1 under Redocly's recommended rules (three departures, each said why)", async () => {
    const config = await createConfig({ extends: ["recommended"], rules: DEPARTURES });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
    const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(found).to.deep.equal([]);
  });

  it("the structure check itself refuses a document that is not OpenAPI 3.1 (the test can fail)", async () => {
    const config = await createConfig({ extends: ["recommended"], rules: DEPARTURES });
    const broken = { ...document, servers: [{ description: "no url" }] };
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => p.ruleId)).to.include("struct");
  });

  it("openapi-typescript generates its types without a word on the console: booleans, codes and events typed", async () => {
    const { result: types, written } = await capturingConsole(async () =>
      astToString(await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: false })),
    );
    expect(written).to.deep.equal([]);
    expect(types).to.include("getKernelTransaction: {");
    expect(types).to.match(/wait\?: boolean;/);
    expect(types).to.match(/code: "INVALID_REQUEST" \| "MALFORMED_JSON" \|/);
    expect(types).to.include('WebhookEvent: components["schemas"]["TransactionSubmittedEvent"] |');
    expect(types).to.match(/type: "transaction\.included";/);
  });
});
