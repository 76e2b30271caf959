import { writeFileSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { format } from "prettier";
import { buildOpenApiDocument } from "../../gateway/routes/document";

/** Where the client package keeps the types generated from the service's OpenAPI document. */
export const CLIENT_TYPES_FILE = path.join(__dirname, "../../sdk/src/generated/openapi.ts");

const HEADER =
  "// Generated from the service's OpenAPI document by `npm run sdk:types`; do not edit by hand.\n" +
  "// A test (test/sdk/generatedTypes.test.ts) fails when this file and the live document differ.\n\n";

/** The client's types for the service's current OpenAPI document, formatted as the repository's files are. */
export async function generateClientTypes(): Promise<string> {
  const document = buildOpenApiDocument() as Parameters<typeof openapiTS>[0];
  const ast = await openapiTS(document, { defaultNonNullable: false });
  return format(HEADER + astToString(ast), { parser: "typescript", filepath: CLIENT_TYPES_FILE, printWidth: 120 });
}

if (require.main === module) {
  generateClientTypes()
    .then((types) => {
      writeFileSync(CLIENT_TYPES_FILE, types);
      console.log(`wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)}`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
