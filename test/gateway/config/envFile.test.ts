import { expect } from "chai";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { readEnvFile } from "../../../gateway/config/envFile";
import { ConfigError } from "../../../gateway/config/load";

const ROOT = path.join(__dirname, "..", "..", "..");

/** A directory holding a `.env` of `text`; its path and the file's. */
function envDirectory(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-dotenv-"));
  const file = path.join(dir, ".env");
  writeFileSync(file, text);
  return { dir, file };
}

describe(".env for npm run serve and npm start", () => {
  it("reads ENV_FILE's settings, the environment winning (a variable set, even empty, keeps its value)", () => {
    const { file } = envDirectory(
      'PORT=4000\nLOG_LEVEL=debug\n# a comment\nHOST=0.0.0.0\nMAINTENANCE_MESSAGE="back soon"\n',
    );
    const env: NodeJS.ProcessEnv = { ENV_FILE: file, LOG_LEVEL: "warn", HOST: "" };
    expect(readEnvFile(env, true)).to.have.members(["PORT", "MAINTENANCE_MESSAGE"]);
    expect(env).to.deep.equal({
      ENV_FILE: file,
      PORT: "4000",
      LOG_LEVEL: "warn",
      HOST: "",
      MAINTENANCE_MESSAGE: "back soon",
    });
  });

  it("ENV_FILE empty reads none; ENV_FILE naming a file that is not there stops the start, naming it", () => {
    const env: NodeJS.ProcessEnv = { ENV_FILE: "" };
    expect(readEnvFile(env, true)).to.deep.equal([]);
    expect(env).to.deep.equal({ ENV_FILE: "" });
    const missing = path.join(tmpdir(), "no-such-dir", "prod.env");
    expect(() => readEnvFile({ ENV_FILE: missing }, true))
      .to.throw(ConfigError)
      .with.property("message")
      .that.matches(new RegExp(`^ENV_FILE ${missing}: ENOENT`));
  });

  it("a cluster worker re-reading .env would take back the keys its primary dropped: a worker reads none", () => {
    const { file } = envDirectory(
      "WALLET_SIGNER_KEY=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d\n",
    );
    const workerEnv: NodeJS.ProcessEnv = { ENV_FILE: file };
    expect(readEnvFile(workerEnv, false)).to.deep.equal([]);
    expect(workerEnv).to.not.have.property("WALLET_SIGNER_KEY");
  });

  it("npm run serve's entry reads the working directory's .env, and the environment wins over it", async function () {
    this.timeout(60_000);
    // A bad PORT only in the file, a bad AUTH_TOKEN_SECRET in the file that the environment's good one replaces.
    const { dir } = envDirectory("PORT=not-a-port\nAUTH_TOKEN_SECRET=short\n");
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["-r", require.resolve("sucrase/register/ts"), path.join(ROOT, "gateway", "main.ts")],
        {
          cwd: dir,
          env: { PATH: process.env.PATH, AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!" },
          encoding: "utf8",
          timeout: 50_000,
        },
        (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(code).to.equal(1);
    expect(stderr).to.match(/^invalid configuration:/);
    expect(stderr).to.match(/^ {2}PORT: /m);
    expect(stderr).to.not.include("AUTH_TOKEN_SECRET");
  });

  it("npm start reads .env before its port check: a taken PORT set there is said at once, the environment's winning", async function () {
    this.timeout(60_000);
    const blockers = await Promise.all([listening(), listening()]);
    const [inFile, inEnv] = blockers.map((server) => (server.address() as AddressInfo).port);
    try {
      const start = (dotenv: string, env: Record<string, string>) => {
        const { dir } = envDirectory(dotenv);
        return spawnSync(
          process.execPath,
          ["-r", require.resolve("sucrase/register/ts"), path.join(ROOT, "scripts", "start.ts")],
          { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: "utf8", timeout: 50_000 },
        );
      };
      const api = start(`PORT=${inFile}\nDEV_RPC_PORT=0\n`, {});
      expect(api.status, api.stderr).to.equal(1);
      expect(api.stderr).to.match(
        new RegExp(`^npm start: port ${inFile} on 127\\.0\\.0\\.1, for the API, is already in use.*set PORT`),
      );
      // DEV_RPC_PORT in the environment wins over the file's: its port is the one checked.
      const rpc = start(`PORT=0\nDEV_RPC_PORT=${inFile}\n`, { DEV_RPC_PORT: String(inEnv) });
      expect(rpc.status, rpc.stderr).to.equal(1);
      expect(rpc.stderr).to.match(new RegExp(`^npm start: port ${inEnv} .*for the chain's RPC.*set DEV_RPC_PORT`));
      const missing = start("", { ENV_FILE: "missing.env" });
      expect([missing.status, missing.stderr]).to.deep.equal([
        1,
        "npm start: ENV_FILE missing.env: ENOENT: no such file or directory, open 'missing.env'\n",
      ]);
    } finally {
      for (const server of blockers) server.close();
    }
  });
});

/** A server holding a port the system chose on 127.0.0.1. */
function listening(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
