import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import { sharedDatabaseApp } from "../helpers/sharedDatabaseApp";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";

const USER_OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!;
const REQUESTS = 500;
const USERS = 100;
const LEASE_SECONDS = 3;

/** Sends `send` to `first`; if that instance is gone (connection refused or reset), to `second`. */
async function toEither<T>(first: ServiceProcess, second: ServiceProcess, send: (url: string) => Promise<T>) {
  try {
    return await send(first.url);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // fetch failed: the instance is down
    return send(second.url);
  }
}

describe("Several instances on one PostgreSQL database (e2e)", function () {
  this.timeout(300_000);
  const running: ServiceProcess[] = [];
  afterEach(async () => void (await Promise.all(running.splice(0).map((service) => service.kill()))));

  it("500 requests over two instances, one killed mid-flight: each ends once, included once, no nonce used twice", async () => {
    const setup = await prepareServiceOnChain();
    const target: TestTarget = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
    await target.waitForDeployment();
    // Blocks every half second, as a real chain mines: bundles wait in the mempool, so a kill finds one in flight.
    await setup.chain.provider.send("evm_setAutomine", [false]);
    await setup.chain.provider.send("evm_setIntervalMining", [500]);

    const { database, repositories, env, appToken } = await sharedDatabaseApp(setup, "two-instances", {
      TX_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    const start = async (instance: string) => {
      const service = await startServiceProcess({ ...env, INSTANCE_ID: instance });
      running.push(service);
      return service;
    };
    let a = await start("instance-a");
    const b = await start("instance-b");

    const calls = (n: number) => [
      { to: target.target as string, data: target.interface.encodeFunctionData("record", [n]) },
    ];
    const submit = async (url: string, n: number, key: string) => {
      const userId = `tel:1415555${String(n % USERS).padStart(4, "0")}`;
      const res = await fetch(`${url}/v1/kernel/tx`, {
        method: "POST",
        headers: { Authorization: `Bearer ${appToken}`, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({
          userId,
          chain: "localhost",
          to: calls(n).map((c) => c.to),
          value: ["0"],
          data: calls(n).map((c) => c.data),
          auth: await setup.userToken(userId),
        }),
      });
      expect(res.status, await res.clone().text()).to.be.oneOf([200, 202]);
      return ((await res.json()) as { id: string }).id;
    };

    // Requests spread over both instances, a few at a time; every fifth is retried on the other instance with the
    // same Idempotency-Key, as a client does whose first answer was lost. Instance A, which took the chain's worker
    // lease first, is killed once bundles are in flight.
    const ids = new Map<number, string>();
    let killed = false;
    const send = async (n: number) => {
      const key = randomUUID();
      const [first, second] = n % 2 === 0 ? [a, b] : [b, a];
      const id = await toEither(first, second, (url) => submit(url, n, key));
      if (n % 5 === 0) expect(await toEither(second, first, (url) => submit(url, n, key))).to.equal(id);
      ids.set(n, id);
    };
    for (let n = 0; n < REQUESTS; n += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => send(n + i)));
      if (!killed && n >= 150) {
        const { count } = await database.db
          .selectFrom("bundles")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .executeTakeFirstOrThrow();
        if (Number(count) > 0) {
          const [lease] = await repositories.workerLeases.list();
          expect(lease?.holder.host).to.equal("instance-a");
          await a.kill();
          killed = true;
        }
      }
    }
    expect(killed, "instance A was killed mid-flight").to.equal(true);
    expect(new Set(ids.values()).size).to.equal(REQUESTS);

    // A comes back with its instance name and joins: it serves requests; B keeps the chain until it stops.
    a = await start("instance-a");
    const views = serviceRequests(a.url, appToken, setup.userToken);
    expect((await views.view(ids.get(0)!)).status).to.be.oneOf(["queued", "submitted", "included"]);
    const finals = [];
    for (const id of ids.values()) finals.push(await views.final(id));
    for (const final of finals) expect(final).to.include({ status: "included", success: true });

    // Each request ran exactly once on chain, under the userOpHash the service reported.
    const logs = await setup.chain.provider.getLogs({
      address: setup.deployment.contracts.entryPoint,
      topics: [USER_OP_EVENT.topicHash],
      fromBlock: 0,
    });
    const ran = logs.map((log) => entryPointInterface.parseLog(log)!.args.userOpHash as string);
    expect(ran).to.have.length(REQUESTS);
    expect(new Set(ran)).to.deep.equal(new Set(finals.map((final) => final.userOpHash)));

    // The relayer sent only the bundles that carried them, one transaction per nonce; no nonce was recorded twice.
    const mined = new Set(finals.map((final) => final.transactionHash));
    expect(await setup.chain.provider.getTransactionCount(setup.relayer, "latest")).to.equal(mined.size);
    const bundles = await database.db.selectFrom("bundles").select(["nonce", "status"]).execute();
    expect(new Set(bundles.map((row) => Number(row.nonce))).size).to.equal(bundles.length);
    const [lease] = await repositories.workerLeases.list();
    expect(lease?.holder.host).to.equal("instance-b");
    expect(lease?.token).to.be.greaterThan(1);
    // Either instance's metrics say which one runs the chain.
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).to.include('idwallet_worker_lease_held{lease="tx-worker:localhost",instance="instance-b"} 1');

    // B stops cleanly: A takes the chain over at once (no lease time to wait) and includes what comes next.
    await b.stop();
    const late = await submit(a.url, REQUESTS, randomUUID());
    expect(await views.final(late)).to.include({ status: "included", success: true });
    const [handedOver] = await repositories.workerLeases.list();
    expect(handedOver?.holder.host).to.equal("instance-a");

    await database.close();
    await setup.chain.close();
  });
});
