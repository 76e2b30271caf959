import { expect } from "chai";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, getDefaultAutoSelectFamily, setDefaultAutoSelectFamily, type Socket } from "node:net";
import { postWebhook } from "../../../gateway/webhooks/webhookPost";
import { checkWebhookUrl, type TargetRules } from "../../../gateway/webhooks/webhookTarget";
import { type NameAnswer, startTestNameserver } from "../../helpers/testNameserver";

const PUBLIC_ONLY: TargetRules = { allowLoopback: false, allowPrivate: false };
const LOOPBACK: TargetRules = { allowLoopback: true, allowPrivate: false };

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real receiver on 127.0.0.1 that records every connection and request before `answer` decides what to do. */
class Receiver {
  readonly requests: Received[] = [];
  readonly sockets: Socket[] = [];
  readonly server: Server;
  port = 0;

  constructor(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        this.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        answer(req, res);
      });
    });
    this.server.on("connection", (socket: Socket) => this.sockets.push(socket));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const started = await new Receiver(answer).start();
  receivers.push(started);
  return started;
}

function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

const restores: (() => Promise<void>)[] = [];

/** The attacker's DNS: a real nameserver on loopback answering the named hosts as the test says; its address. */
async function fakeDns(answers: Record<string, NameAnswer>): Promise<string[]> {
  const nameserver = await startTestNameserver(answers);
  restores.push(nameserver.close);
  return [nameserver.server];
}

describe("webhooks: postWebhook against a malicious app's receivers", () => {
  afterEach(async () => {
    while (restores.length > 0) await restores.pop()!();
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });

  describe("what reaches the receiver", () => {
    it("delivers the exact body with our headers and the given ones to a 200 receiver", async () => {
      const hooks = await receiver((_req, res) => res.writeHead(200).end("ok"));
      const body = JSON.stringify({ type: "transaction.included", note: "café" });
      const result = await postWebhook(
        `${hooks.url}/hooks/idwallet?app=a1`,
        { "webhook-id": "msg_1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,c2ln" },
        body,
        { timeoutMs: 2000, rules: LOOPBACK },
      );
      expect(result.outcome).to.equal("delivered");
      expect(result.statusCode).to.equal(200);
      expect(result.error).to.equal(undefined);
      expect(result.durationMs).to.be.a("number").and.to.be.at.least(0).and.below(2000);
      expect(hooks.requests).to.have.length(1);
      const [received] = hooks.requests;
      expect(received!.method).to.equal("POST");
      expect(received!.url).to.equal("/hooks/idwallet?app=a1");
      expect(received!.body).to.equal(body);
      expect(received!.headers["content-type"]).to.equal("application/json");
      expect(received!.headers["user-agent"]).to.equal("idwallet-webhooks");
      // Bytes, not characters: "é" is two bytes in UTF-8.
      expect(received!.headers["content-length"]).to.equal(String(Buffer.byteLength(body)));
      expect(received!.headers["webhook-id"]).to.equal("msg_1");
      expect(received!.headers["webhook-timestamp"]).to.equal("1700000000");
      expect(received!.headers["webhook-signature"]).to.equal("v1,c2ln");
    });

    it("reports a 500 as http_error with its status", async () => {
      const hooks = await receiver((_req, res) => res.writeHead(500).end("boom"));
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 2000, rules: LOOPBACK });
      expect(result).to.include({ outcome: "http_error", statusCode: 500 });
      expect(hooks.requests).to.have.length(1);
    });
  });

  describe("redirects", () => {
    it("does not follow a 302 to another local server: http_error 302, and the second server sees nothing", async () => {
      const inside = await receiver((_req, res) => res.writeHead(200).end());
      const hooks = await receiver((_req, res) => res.writeHead(302, { Location: `${inside.url}/admin` }).end());
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 2000, rules: LOOPBACK });
      expect(result).to.include({ outcome: "http_error", statusCode: 302 });
      expect(hooks.requests).to.have.length(1);
      expect(inside.requests).to.have.length(0);
      expect(inside.sockets).to.have.length(0);
    });
  });

  describe("slow and greedy receivers", () => {
    it("gives up on a receiver that never answers after timeoutMs, and destroys the socket", async () => {
      const hooks = await receiver(() => undefined);
      const started = performance.now();
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 300, rules: LOOPBACK });
      const took = performance.now() - started;
      expect(result.outcome).to.equal("timeout");
      expect(result.durationMs).to.be.at.least(295);
      expect(took).to.be.below(300 + 500);
      expect(hooks.requests).to.have.length(1);
      expect(hooks.sockets).to.have.length(1);
      expect(await closedWithin(hooks.sockets[0]!, 1000)).to.equal(true);
    });

    it("times out a receiver that sends its status but trickles the body past the deadline", async () => {
      const hooks = await receiver((_req, res) => {
        res.writeHead(200);
        const drip = setInterval(() => res.write("."), 50);
        res.on("close", () => clearInterval(drip));
      });
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 300, rules: LOOPBACK });
      expect(result).to.include({ outcome: "timeout", statusCode: 200 });
      expect(await closedWithin(hooks.sockets[0]!, 1000)).to.equal(true);
    });

    it("returns delivered from a receiver streaming an endless body, reading only the first 64 KiB", async () => {
      let written = 0;
      let hungUp: Promise<void> = Promise.resolve();
      const hooks = await receiver((_req, res) => {
        res.writeHead(200, { "Content-Type": "application/octet-stream" });
        hungUp = new Promise((resolve) => res.on("close", resolve));
        const chunk = Buffer.alloc(16 * 1024, 0x61);
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk)) written += chunk.length;
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
      });
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 5000, rules: LOOPBACK });
      expect(result).to.include({ outcome: "delivered", statusCode: 200 });
      expect(result.durationMs).to.be.below(5000);
      await hungUp;
      // Kernel buffers let the server get ahead of what was read, but nowhere near an endless body.
      expect(written).to.be.below(64 * 1024 * 1024);
    });
  });

  describe("network failures", () => {
    it("reports a closed port as network_error with a short message", async () => {
      const gone = await new Receiver(() => undefined).start();
      const url = gone.url;
      await gone.stop();
      const result = await postWebhook(url, {}, "{}", { timeoutMs: 2000, rules: LOOPBACK });
      expect(result.outcome).to.equal("network_error");
      expect(result.error).to.match(/ECONNREFUSED/);
      expect(result.error).to.not.match(/\n\s+at /);
      expect(result.statusCode).to.equal(undefined);
    });
  });

  describe("rules re-checked at send time", () => {
    it("refuses a loopback URL stored before allowLoopback was turned off, without connecting", async () => {
      const hooks = await receiver((_req, res) => res.writeHead(200).end());
      const result = await postWebhook(hooks.url, {}, "{}", { timeoutMs: 2000, rules: PUBLIC_ONLY });
      expect(result).to.include({ outcome: "refused", error: "the address 127.0.0.1 is loopback" });
      expect(hooks.sockets).to.have.length(0);
    });

    it("refuses https://localhost without allowLoopback, and delivers to http://localhost with it", async () => {
      const hooks = await receiver((_req, res) => res.writeHead(204).end());
      const refused = await postWebhook(`https://localhost:${hooks.port}/`, {}, "{}", {
        timeoutMs: 2000,
        rules: PUBLIC_ONLY,
      });
      expect(refused).to.include({ outcome: "refused", error: "the host localhost is loopback" });
      expect(hooks.sockets).to.have.length(0);
      // Only 127.0.0.1 listens: where localhost also answers ::1, the guard's answer must let net fall back to IPv4.
      const delivered = await postWebhook(`http://localhost:${hooks.port}/`, {}, "{}", {
        timeoutMs: 2000,
        rules: LOOPBACK,
      });
      expect(delivered).to.include({ outcome: "delivered", statusCode: 204 });
      expect(hooks.requests).to.have.length(1);
    });
  });

  // Registration-time checks only see a name; what it resolves to is the attacker's to change afterwards.
  for (const autoSelectFamily of [true, false]) {
    describe(`DNS rebinding (net autoSelectFamily ${autoSelectFamily}: lookup called ${autoSelectFamily ? "with" : "without"} all)`, () => {
      let before: boolean;
      beforeEach(() => {
        before = getDefaultAutoSelectFamily();
        setDefaultAutoSelectFamily(autoSelectFamily);
      });
      afterEach(() => setDefaultAutoSelectFamily(before));

      it("refuses a public-looking name that resolves to loopback, and the server sees no connection", async () => {
        const hooks = await receiver((_req, res) => res.writeHead(200).end());
        const url = `https://rebind.attacker.test:${hooks.port}/hook`;
        expect(checkWebhookUrl(url, PUBLIC_ONLY).ok).to.equal(true);
        const dnsServers = await fakeDns({ "rebind.attacker.test": ["127.0.0.1"] });
        const result = await postWebhook(url, {}, "{}", { timeoutMs: 2000, rules: PUBLIC_ONLY, dnsServers });
        expect(result).to.include({
          outcome: "refused",
          error: "the host rebind.attacker.test resolves to: the address 127.0.0.1 is loopback",
        });
        expect(hooks.sockets).to.have.length(0);
      });

      it("refuses a name whose answers mix an allowed address with a private one", async () => {
        const hooks = await receiver((_req, res) => res.writeHead(200).end());
        const dnsServers = await fakeDns({ "mixed.attacker.test": ["127.0.0.1", "10.0.0.7"] });
        const result = await postWebhook(`https://mixed.attacker.test:${hooks.port}/`, {}, "{}", {
          timeoutMs: 2000,
          rules: LOOPBACK,
          dnsServers,
        });
        expect(result).to.include({
          outcome: "refused",
          error: "the host mixed.attacker.test resolves to: the address 10.0.0.7 is private",
        });
        expect(hooks.sockets).to.have.length(0);
      });

      it("refuses a name whose IPv6 answer is unique-local though its IPv4 answer is allowed", async () => {
        const hooks = await receiver((_req, res) => res.writeHead(200).end());
        // Both families are asked and every answer judged: net may connect to either.
        const dnsServers = await fakeDns({ "split.attacker.test": ["127.0.0.1", "fd12:3456::7"] });
        const result = await postWebhook(`https://split.attacker.test:${hooks.port}/`, {}, "{}", {
          timeoutMs: 2000,
          rules: LOOPBACK,
          dnsServers,
        });
        expect(result).to.include({
          outcome: "refused",
          error: "the host split.attacker.test resolves to: the address fd12:3456::7 is unique-local",
        });
        expect(hooks.sockets).to.have.length(0);
      });

      it("refuses an IPv4-mapped IPv6 answer carrying a private address", async () => {
        const hooks = await receiver((_req, res) => res.writeHead(200).end());
        const dnsServers = await fakeDns({ "mapped.attacker.test": ["::ffff:169.254.169.254"] });
        const result = await postWebhook(`https://mapped.attacker.test:${hooks.port}/`, {}, "{}", {
          timeoutMs: 2000,
          rules: LOOPBACK,
          dnsServers,
        });
        expect(result).to.include({
          outcome: "refused",
          error: "the host mapped.attacker.test resolves to: the address 169.254.169.254 is link-local",
        });
      });

      it("connects to the checked address when every answer is allowed", async () => {
        const hooks = await receiver((_req, res) => res.writeHead(200).end());
        const dnsServers = await fakeDns({ "hooks.app.localhost": ["127.0.0.1"] });
        const result = await postWebhook(`http://hooks.app.localhost:${hooks.port}/`, {}, "{}", {
          timeoutMs: 2000,
          rules: LOOPBACK,
          dnsServers,
        });
        expect(result).to.include({ outcome: "delivered", statusCode: 200 });
        expect(hooks.requests).to.have.length(1);
      });
    });
  }
});
