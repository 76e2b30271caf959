import { expect } from "chai";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { closedSignal } from "../../../gateway/http/closedSignal";

describe("closedSignal: a waiting status request stops once no one reads it", () => {
  it("is aborted when the client leaves during the wait, and at once when it had left before the wait began", async () => {
    const signals: { before: AbortSignal; late?: AbortSignal }[] = [];
    const served = new Promise<void>((resolve) => {
      const server = createServer((_req, res) => {
        const before = closedSignal(res);
        const entry: { before: AbortSignal; late?: AbortSignal } = { before };
        signals.push(entry);
        // The look-up takes a while; the client is gone by the time the wait would begin.
        res.on("close", () =>
          setTimeout(() => {
            entry.late = closedSignal(res);
            server.close();
            resolve();
          }, 20),
        );
      });
      server.listen(0, "127.0.0.1", () => {
        const client = request({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, path: "/" });
        client.on("error", () => undefined);
        client.end();
        setTimeout(() => client.destroy(), 50);
      });
    });
    await served;
    expect(signals).to.have.length(1);
    expect(signals[0]!.before.aborted, "aborted when the client left").to.equal(true);
    expect(signals[0]!.late!.aborted, "aborted at once, made after the client left").to.equal(true);
  });
});
