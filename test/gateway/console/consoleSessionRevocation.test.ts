import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import request from "supertest";
import { buildTestApp } from "../../helpers/testApp";
import { serviceDatabase } from "../../helpers/testDatabase";
import { CONSOLE_TOKEN, logIn } from "./consoleSession";

/**
 * Attack (issue 38 review): a session cookie stolen (or a token leaked) is answered by rotating CONSOLE_TOKEN, or by
 * turning the console off and on again. Neither closes the sessions already open: the stolen cookie keeps working
 * until its own expiry (8 h by default, up to 7 days), and there is no command to close them.
 */
describe("Operator console attack: a session opened with a token the operator has since rotated", () => {
  it("is refused once the token it was opened with is replaced", async () => {
    const databasePath = await serviceDatabase(mkdtempSync(path.join(tmpdir(), "idwallet-console-rot-")));
    const before = buildTestApp({ console: { token: CONSOLE_TOKEN } }, { databasePath });
    let stolen: string;
    try {
      stolen = (await logIn(before)).cookie;
      expect(stolen).to.match(/^idwallet_console=/);
    } finally {
      before.close();
    }
    // The operator rotates the token and restarts.
    const after = buildTestApp(
      { console: { token: "a-new-console-token-after-the-leak-0123456789" } },
      { databasePath },
    );
    try {
      const res = await request(after.app).get("/console").set("Cookie", stolen);
      expect(res.status, "the stolen session after rotation").to.equal(401);
    } finally {
      after.close();
    }
  });
});
