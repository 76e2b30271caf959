import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { BundlerRpc } from "../../../gateway/bundler/bundlerRpc";

/** What the receiver saw of one request. */
interface Seen {
  readonly path: string | undefined;
  readonly authorization: string | undefined;
  readonly body: { method: string; params: unknown[] };
}

describe("BundlerRpc (a bundler's JSON-RPC over HTTP, against a loopback receiver that misbehaves)", () => {
  let server: Server;
  let url: string;
  let seen: Seen[];
  /** How the receiver answers the next requests. */
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  let closedSockets: number;

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += String(chunk)));
      req.on("end", () => {
        seen.push({ path: req.url, authorization: req.headers.authorization, body: JSON.parse(body) as Seen["body"] });
        answer(req, res);
      });
    });
    server.on("connection", (socket) => socket.on("close", () => closedSockets++));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc?apikey=k`;
  });
  beforeEach(() => {
    seen = [];
    closedSockets = 0;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));

  it("sends one JSON-RPC 2.0 call and returns its result, a null one too", async () => {
    answer = json(200, { jsonrpc: "2.0", id: 1, result: "0xabc" });
    expect(await new BundlerRpc(url, 1000).call("eth_sendUserOperation", [{ a: 1 }, "0xe"])).to.deep.equal({
      result: "0xabc",
    });
    answer = json(200, { jsonrpc: "2.0", id: 2, result: null });
    expect(await new BundlerRpc(url, 1000).call("eth_getUserOperationReceipt", ["0x1"])).to.deep.equal({
      result: null,
    });
    expect(seen.map((s) => s.body)).to.deep.include({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_sendUserOperation",
      params: [{ a: 1 }, "0xe"],
    });
  });

  it("reads a JSON-RPC error in any HTTP status: a refusal answered with 400 or 500 is an answer", async () => {
    for (const status of [200, 400, 500]) {
      answer = json(status, { jsonrpc: "2.0", id: 1, error: { code: -32500, message: "AA21 didn't pay prefund" } });
      expect(await new BundlerRpc(url, 1000).call("eth_sendUserOperation", [])).to.deep.equal({
        error: { code: -32500, message: "AA21 didn't pay prefund" },
      });
    }
  });

  it("an HTTP error page, a 429 and a body that is no JSON-RPC are unanswered, each sent once", async () => {
    for (const [status, body, reason] of [
      [500, "<html>Internal Server Error</html>", "HTTP 500"],
      [502, "Bad Gateway", "HTTP 502"],
      [429, "slow down", "HTTP 429"],
      [200, "<html>a captive portal</html>", "an answer that is not JSON-RPC"],
      [200, '{"jsonrpc":"2.0","id":1}', "an answer that is not JSON-RPC"],
      [503, '{"jsonrpc":"2.0","id":1,"result":"0xabc"}', "HTTP 503"],
    ] as const) {
      seen = [];
      answer = (_req, res) => res.writeHead(status, { "Retry-After": "0" }).end(body);
      expect(await new BundlerRpc(url, 1000).call("eth_sendUserOperation", [])).to.deep.equal({ unanswered: reason });
      expect(seen, `${status} ${body}`).to.have.length(1);
    }
  });

  it("a bundler that never answers is given up after the timeout, and its connection closed", async () => {
    answer = () => undefined;
    const started = Date.now();
    expect(await new BundlerRpc(url, 300).call("eth_sendUserOperation", [])).to.deep.equal({
      unanswered: "no answer within 300 ms",
    });
    expect(Date.now() - started).to.be.within(250, 2000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closedSockets).to.equal(1);
  });

  it("a bundler that closes the connection, or a port nobody listens on, is a failed connection", async () => {
    answer = (req) => req.socket.destroy();
    const hungUp = await new BundlerRpc(url, 1000).call("eth_sendUserOperation", []);
    expect(hungUp)
      .to.have.property("unanswered")
      .that.matches(/^connection failed \(/);
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    expect(await new BundlerRpc(`http://127.0.0.1:${port}`, 1000).call("eth_chainId", [])).to.deep.equal({
      unanswered: "connection failed (ECONNREFUSED)",
    });
  });

  it("sends the URL's user information as basic authentication, and keeps its query", async () => {
    answer = json(200, { jsonrpc: "2.0", id: 1, result: "0x1" });
    const withUser = url.replace("http://", "http://us%40er:p%3Ass@");
    expect(await new BundlerRpc(withUser, 1000).call("eth_chainId", [])).to.deep.equal({ result: "0x1" });
    expect(seen[0]!.path).to.equal("/rpc?apikey=k");
    expect(seen[0]!.authorization).to.equal(`Basic ${Buffer.from("us@er:p:ss").toString("base64")}`);
    expect(await new BundlerRpc(url, 1000).call("eth_chainId", [])).to.deep.equal({ result: "0x1" });
    expect(seen[1]!.authorization).to.equal(undefined);
  });
});
