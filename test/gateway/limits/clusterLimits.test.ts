import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import golden from "../../vectors/addresses.json";
import { type ServiceProcess, startServiceProcess } from "../../helpers/serviceProcess";

/** POST /v1/auth on a connection of its own (the cluster's primary hands each connection to the next worker). */
function guess(url: string, clientId: string): Promise<number> {
  const body = `client_id=${clientId}&client_secret=wrong`;
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/auth`,
      {
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("limits: the HTTP workers of one service (node:cluster, WORKERS=2) share each count", () => {
  let dir: string;
  let service: ServiceProcess | undefined;
  after(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("guesses from one address spread over both workers: AUTH_PER_IP_PER_MINUTE judged in total, then 429", async function () {
    this.timeout(120_000);
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-cluster-limits-"));
    service = await startServiceProcess({
      DATABASE_PATH: path.join(dir, "idwallet.sqlite"),
      AUTH_TOKEN_SECRET: "cluster-limits-secret-of-at-least-32-chars",
      CONTRACT_KERNEL_FACTORY: golden.kernelFactory,
      CONTRACT_BASE_FACTORY: golden.baseFactory,
      WORKERS: "2",
      AUTH_PER_IP_PER_MINUTE: "3",
      LOG_LEVEL: "silent",
    });
    const answers: number[] = [];
    // One at a time, each on its own connection: the primary deals them to the two workers in turn.
    for (let i = 0; i < 8; i++) answers.push(await guess(service.url, `cid_guess${i}`));
    expect(answers).to.deep.equal([401, 401, 401, 429, 429, 429, 429, 429]);
  });
});
