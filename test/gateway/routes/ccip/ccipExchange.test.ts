import { expect } from "chai";
import request from "supertest";
import { createCcipHandler } from "../../../../gateway/routes/ccip/ccipHandler";
import { createProcessLimits } from "../../../../gateway/limits/processLimits";
import { capturingLogger } from "../../../helpers/capturingLogger";

// The CCIP gateway serves requests with the API's request id, access line and problem answer (http/logging.ts,
// http/problemHandler.ts), not copies of its own: what the API's tests hold for those holds here too.

const RESOLVER = "0x00000000000000000000000000000000000000e5";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A gateway whose answers are `answer`'s (no signing here), its log lines kept. */
function gateway(answer: () => Promise<{ data: string; expires: number }>) {
  const lines: string[] = [];
  const handler = createCcipHandler({
    answer,
    clock: () => new Date("2026-11-28T12:00:00Z"),
    refreshMarginSeconds: 60,
    requestsPerMinute: 1000,
    limits: createProcessLimits(),
    trustProxy: false,
    logger: capturingLogger(lines),
  });
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { handler, logged };
}

const lookupPath = `/ccip/${RESOLVER}/0x9061b923.json`;

describe("CCIP-read gateway: the API's request id, access line and problems", () => {
  it("keeps a sane incoming X-Request-Id, makes one otherwise, and writes the API's access line without the lookup", async () => {
    const { handler, logged } = gateway(async () => ({ data: "0xabcd", expires: 1_800_000_000 }));
    const kept = await request(handler).get(lookupPath).set("X-Request-Id", "trace-42").expect(200);
    expect(kept.headers["x-request-id"]).to.equal("trace-42");
    expect(kept.body).to.deep.equal({ data: "0xabcd" });
    const made = await request(handler).get(lookupPath).set("X-Request-Id", "not sane!").expect(200);
    expect(made.headers["x-request-id"]).to.match(UUID);
    const lines = logged().filter((line) => line.msg === "request completed");
    expect(lines.map(({ reqId, req, res }) => ({ reqId, req, res }))).to.deep.equal([
      { reqId: "trace-42", req: { id: "trace-42", method: "GET", path: "/ccip" }, res: { statusCode: 200 } },
      {
        reqId: made.headers["x-request-id"],
        req: { id: made.headers["x-request-id"], method: "GET", path: "/ccip" },
        res: { statusCode: 200 },
      },
    ]);
  });

  it("answers a failure as the API's problem, with the gateway's CORS, its id, a 5xx logged at error level", async () => {
    const { handler, logged } = gateway(async () => {
      throw new Error("the signer is gone");
    });
    const answer = await request(handler).get(`${lookupPath}?x=1`).set("X-Request-Id", "trace-43").expect(500);
    expect(answer.headers).to.include({
      "x-request-id": "trace-43",
      "access-control-allow-origin": "*",
      "content-type": "application/problem+json",
    });
    expect(answer.body).to.deep.equal({
      type: "about:blank",
      title: "Internal server error",
      status: 500,
      code: "INTERNAL",
      instance: lookupPath,
      requestId: "trace-43",
    });
    const failed = logged().find((line) => line.msg === "request failed");
    expect(failed).to.include({ level: 50, reqId: "trace-43", code: "INTERNAL" });
    const completed = logged().find((line) => line.msg === "request completed");
    expect(completed).to.deep.include({ level: 50, req: { id: "trace-43", method: "GET", path: "/ccip" } });
  });
});
