import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { parseAdminArgs } from "../../../scripts/admin/args";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT, type AdminOutput } from "../../../scripts/admin/commands";
import { TEST_KEYS } from "../storage/builders";

/** One request the receiver got. */
interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A webhook receiver on 127.0.0.1 answering `status`, keeping every request. */
async function startReceiver(status: number): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: plain(req.headers), body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

const plain = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

/** Whether `secret` verifies a received request's Standard Webhooks signature. */
function verifies(secret: string, request: Received): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

const secretIn = (text: string): string => /signing secret: (whsec_\S+)/.exec(text)?.[1] ?? "";
const endpointIdIn = (text: string): string => /endpoint (ep_[0-9a-f]+)/.exec(text)?.[1] ?? "";
const eventIdIn = (text: string): string => /event (msg_[0-9a-f]+)/.exec(text)?.[1] ?? "";

describe("admin CLI: webhooks", () => {
  let dir: string;
  let servers: Server[];
  let appId: string;

  /** `npm run admin -- --db <fresh file> <argv>` in-process, with the service's SECRETS_KEY and loopback allowed. */
  const admin = async (...argv: string[]) => {
    const output = captureOutput();
    const env = { SECRETS_KEY: TEST_KEYS.current, WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_TIMEOUT_MS: "5000" };
    // A real clock: receivers refuse a signature whose timestamp is not about now.
    const code = await runAdminCli(["--db", path.join(dir, "admin.sqlite"), ...argv], {
      env,
      output,
      clock: () => new Date(),
    });
    return { code, out: output.stdout.join("\n"), err: output.stderr.join("\n") };
  };

  const receiver = async (status: number) => {
    const started = await startReceiver(status);
    servers.push(started.server);
    return started;
  };

  /** Registers an endpoint at `url`; its id and signing secret. */
  const add = async (url: string) => {
    const added = await admin("webhooks", "add", appId, url);
    expect(added.code, added.err).to.equal(EXIT.ok);
    return { id: endpointIdIn(added.out), secret: secretIn(added.out), added };
  };

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-admin-webhooks-"));
    servers = [];
    const created = await admin("apps", "create", "Hooked");
    appId = /id: +(app_\S+)/.exec(created.out)?.[1] ?? "";
    expect(appId).to.not.equal("");
  });
  afterEach(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  it("adds an endpoint, prints its secret once, lists it without it, and delivers a signed test event", async () => {
    const target = await receiver(200);
    const { id, secret, added } = await add(target.url);
    expect(secret).to.match(/^whsec_/);
    expect(added.err).to.include("will not be shown again");

    const listed = await admin("webhooks", "list", appId);
    expect(listed.out).to.include(id).and.include(target.url).and.include("all").and.include("enabled");
    expect(listed.out).to.not.include("whsec_").and.not.include(secret.slice(6));

    const tested = await admin("webhooks", "test", id);
    expect(tested.code, tested.err).to.equal(EXIT.ok);
    expect(tested.out).to.include("delivered").and.include("HTTP 200");
    expect(target.received).to.have.length(1);
    const [request] = target.received;
    expect(request!.headers["webhook-id"]).to.equal(eventIdIn(tested.out));
    expect(verifies(secret, request!)).to.equal(true);
    expect(JSON.parse(request!.body)).to.deep.include({ type: "webhook.test" });

    const deliveries = await admin("webhooks", "deliveries", id);
    expect(deliveries.out).to.include(eventIdIn(tested.out)).and.include("webhook.test").and.include("delivered");
  });

  it("exits non-zero when the test event is not delivered, and lists the failed attempt", async () => {
    const target = await receiver(500);
    const { id } = await add(target.url);
    const tested = await admin("webhooks", "test", id);
    expect(tested.code).to.equal(EXIT.failed);
    expect(tested.err).to.include("not delivered").and.include("http_error").and.include("HTTP 500");
    expect(target.received).to.have.length(1);

    const deliveries = await admin("webhooks", "deliveries", id, "--limit", "5");
    expect(deliveries.code).to.equal(EXIT.ok);
    const row = deliveries.out.split("\n").find((line) => line.includes(eventIdIn(tested.err)));
    expect(row).to.match(/webhook\.test\s+1\s+http_error\s+500\s+-\s+\d+ ms\s+pending$/);
    expect((await admin("webhooks", "list")).out).to.match(/enabled\s+1\s+-$/m);
  });

  it("rotates the signing secret: during the overlap a delivery verifies with either secret", async () => {
    const target = await receiver(200);
    const { id, secret: old } = await add(target.url);
    const rotated = await admin("webhooks", "rotate-secret", id);
    expect(rotated.code).to.equal(EXIT.ok);
    expect(rotated.out).to.match(/the old one signs beside it for 86400 s more/);
    const fresh = secretIn(rotated.out);
    expect((await admin("webhooks", "test", id)).code).to.equal(EXIT.ok);
    const [request] = target.received;
    expect(request!.headers["webhook-signature"]!.split(" ")).to.have.length(2);
    expect(verifies(old, request!)).to.equal(true);
    expect(verifies(fresh, request!)).to.equal(true);
  });

  it("rotates a leaked secret with --revoke-old: the next test delivery verifies with the new secret, not the old", async () => {
    const target = await receiver(200);
    const { id, secret: old } = await add(target.url);
    const rotated = await admin("webhooks", "rotate-secret", id, "--revoke-old");
    expect(rotated.code).to.equal(EXIT.ok);
    expect(rotated.err).to.include("will not be shown again");
    const fresh = secretIn(rotated.out);
    expect(fresh)
      .to.match(/^whsec_/)
      .and.not.equal(old);

    expect((await admin("webhooks", "test", id)).code).to.equal(EXIT.ok);
    const [request] = target.received;
    expect(verifies(old, request!)).to.equal(false);
    expect(verifies(fresh, request!)).to.equal(true);
  });

  it("refuses a private URL, an unknown app and a bad setting, storing nothing", async () => {
    const refused = await admin("webhooks", "add", appId, "https://192.168.1.10/");
    expect(refused.code).to.not.equal(EXIT.ok);
    expect(refused.err).to.include("The webhook URL is not allowed");
    expect(refused.out).to.not.include("whsec_");

    const unknownApp = await admin("webhooks", "add", "app_missing", "https://example.com/hook");
    expect([unknownApp.code, unknownApp.err]).to.deep.equal([EXIT.notFound, 'Error: app "app_missing" not found']);

    const output = captureOutput();
    const env = { SECRETS_KEY: TEST_KEYS.current, WEBHOOK_TIMEOUT_MS: "5" };
    const file = path.join(dir, "admin.sqlite");
    const argv = ["--db", file, "webhooks", "add", appId, "https://example.com/hook"];
    expect(await runAdminCli(argv, { env, output, clock: () => new Date() })).to.equal(EXIT.usage);
    expect(output.stderr.join("\n")).to.include("WEBHOOK_TIMEOUT_MS");

    expect((await admin("webhooks", "list")).out).to.equal("No webhook endpoints.");
  });

  it("disables and enables an endpoint, as list shows", async () => {
    const { id } = await add("https://example.com/hook");
    expect((await admin("webhooks", "disable", id)).code).to.equal(EXIT.ok);
    expect((await admin("webhooks", "list")).out).to.match(/disabled\s+0\s+disabled by the operator$/m);
    const tested = await admin("webhooks", "test", id);
    expect([tested.code, tested.err]).to.deep.equal([
      EXIT.failed,
      `Error: webhook endpoint ${id} is disabled (disabled by the operator): enable it first`,
    ]);
    expect((await admin("webhooks", "enable", id)).code).to.equal(EXIT.ok);
    expect((await admin("webhooks", "list")).out).to.match(/enabled\s+0\s+-$/m);
  });

  it("redelivers a known event and refuses an unknown one", async () => {
    const target = await receiver(200);
    const { id } = await add(target.url);
    const eventId = eventIdIn((await admin("webhooks", "test", id)).out);
    const again = await admin("webhooks", "redeliver", eventId);
    expect([again.code, again.out]).to.deep.equal([
      EXIT.ok,
      `Queued event ${eventId} again for 1 endpoint(s), due at once (a disabled endpoint once enabled)`,
    ]);
    const rows = (await admin("webhooks", "deliveries", id)).out.split("\n").filter((line) => line.includes(eventId));
    // The one attempt so far was delivered; the delivery is owed again.
    expect(rows).to.have.length(1);
    expect(rows[0]).to.match(/delivered\s+200\s+-\s+\d+ ms\s+pending$/);

    const unknown = await admin("webhooks", "redeliver", "msg_unknown");
    expect(unknown.code).to.equal(EXIT.failed);
    expect(unknown.err).to.include('"msg_unknown"');
  });

  it("fails every endpoint command for an unknown endpoint id", async () => {
    for (const action of ["remove", "rotate-secret", "enable", "disable", "test", "deliveries"]) {
      const result = await admin("webhooks", action, "ep_missing");
      expect([action, result.code, result.err]).to.deep.equal([
        action,
        EXIT.notFound,
        'Error: webhook endpoint "ep_missing" not found',
      ]);
    }
  });

  it("removes an endpoint", async () => {
    const { id } = await add("https://example.com/hook");
    expect((await admin("webhooks", "remove", id)).code).to.equal(EXIT.ok);
    expect((await admin("webhooks", "list", appId)).out).to.equal(`No webhook endpoints for app ${appId}.`);
  });

  it("parses events and limits, and refuses what a webhook command would ignore", () => {
    const parse = (line: string) => parseAdminArgs(line.split(" "));
    expect(parse("webhooks add app_1 https://x.example/ --events safe.failed,transaction.included")).to.deep.include({
      ok: true,
      command: {
        kind: "webhooks",
        command: {
          kind: "add",
          appId: "app_1",
          url: "https://x.example/",
          events: ["safe.failed", "transaction.included"],
        },
      },
    });
    const refusals: ReadonlyArray<readonly [string, RegExp]> = [
      ["webhooks add app_1 https://x.example/ --events transaction.nope", /unknown event type "transaction.nope"/],
      ["webhooks list --events safe.failed", /--events applies only to webhooks add/],
      ["webhooks deliveries ep_1 --limit 0", /--limit must be 1 to 1000/],
      ["webhooks test ep_1 --limit 5", /--limit applies only to webhooks deliveries/],
      ["apps list --limit 5", /--limit applies only to webhooks commands/],
      ["webhooks test", /takes 1 argument/],
      ["webhooks list a b", /takes 0 or 1 argument/],
      ["webhooks frob", /unknown command "webhooks frob"/],
    ];
    for (const [line, error] of refusals) {
      const parsed = parse(line);
      expect(parsed.ok, line).to.equal(false);
      if (!parsed.ok) expect(parsed.error, line).to.match(error);
    }
  });
});
