import { expect } from "chai";
import { readFileSync } from "node:fs";
import { CLIENT_TYPES_FILE, generateClientTypes } from "../../scripts/sdk/generateClientTypes";

describe("the client package's generated types", () => {
  it("are what the live OpenAPI document generates (run `npm run sdk:types` after changing a route)", async () => {
    const committed = readFileSync(CLIENT_TYPES_FILE, "utf8");
    const live = await generateClientTypes();
    if (committed !== live) {
      const committedLines = committed.split("\n");
      const first = live.split("\n").findIndex((line, i) => line !== committedLines[i]);
      expect.fail(
        `sdk/src/generated/openapi.ts differs from the document from line ${first + 1}: run \`npm run sdk:types\``,
      );
    }
  });
});
