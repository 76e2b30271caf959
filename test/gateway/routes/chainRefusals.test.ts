import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const TARGET = "0x000000000000000000000000000000000000dEaD";
const SIGNER = "0x00000000000000000000000000000000000000A1";
const HASH = `0x${"ab".repeat(32)}`;
const SAFE_CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;

/** A chain client that is never called: every refusal here comes before any chain read. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

describe("API: every path refuses a chain it cannot serve with its one stable problem", () => {
  // localhost takes everything; matic is served without a worker; eth has an RPC but the API does not serve it (spec
  // §4.7 planned); arb1 sends through an external bundler; linea has no RPC here.
  const setup = async () => {
    const built = buildTestApp(
      {
        walletSignerKey: `0x${"3c".repeat(32)}`,
        relayerKey: `0x${"4b".repeat(32)}`,
        chains: {
          localhost: { rpcUrl: "http://127.0.0.1:9" },
          matic: { rpcUrl: "http://127.0.0.1:9" },
          eth: { rpcUrl: "http://127.0.0.1:9" },
          arb1: { rpcUrl: "http://127.0.0.1:9", bundlerUrl: "http://127.0.0.1:9" },
        },
        safe: { operatorKey: `0x${"5a".repeat(32)}`, contracts: SAFE_CONTRACTS },
      },
      {
        chains: new Map([
          ["localhost", idleChain("localhost", 31337)],
          ["matic", idleChain("matic", 137)],
          ["eth", idleChain("eth", 1)],
          ["arb1", idleChain("arb1", 42161)],
        ]),
        txChains: ["localhost", "eth", "arb1"],
      },
    );
    const { token } = await built.appWithToken("acme app", true);
    const send = (method: "get" | "post", path: string, body?: object) =>
      request(built.app)[method](path).set("Authorization", `Bearer ${token}`).send(body);
    return { ...built, send };
  };

  const problem = (status: number, code: string, title: string, detail: string, instance: string) => ({
    type: "about:blank",
    title,
    status,
    code,
    detail,
    instance,
  });
  // Each refusal lists the chains this deployment would take the request on: what to send instead.
  const TAKING_TRANSACTIONS = "Chains taking transactions here: arb1, localhost";
  const SERVED = "Chains served here: matic, arb1, localhost";
  const WITH_SAFES = "Chains with Safe accounts here: eth, localhost";
  const CONFIGURED = "Chains configured here: matic, arb1, eth, localhost";
  const unknown = (instance: string, usable: string) =>
    problem(
      400,
      "UNKNOWN_CHAIN",
      "Unknown chain",
      `No chain is named nowhere (chains go by their ERC-3770 short names). ${usable}`,
      instance,
    );
  const notAvailable = (detail: string, instance: string) =>
    problem(400, "CHAIN_NOT_AVAILABLE", "Chain not available", detail, instance);
  const body = (res: request.Response) => {
    const { requestId, ...rest } = res.body as Record<string, unknown>;
    expect(requestId).to.be.a("string");
    return [res.status, rest];
  };

  it("wallet transactions and signatures: unknown, not served (no RPC, or not live), no worker", async () => {
    const { send, close } = await setup();
    const tx = (chain: string) =>
      send("post", "/v1/kernel/tx", {
        userId: "acme:alice",
        chain,
        to: [TARGET],
        value: ["0"],
        data: ["0x"],
        auth: "",
      });
    const sign = (chain: string) =>
      send("post", "/v1/kernel/sign", { userId: "acme:alice", hash: HASH, auth: "", chain });
    const cases: [request.Response, number, object][] = [
      [await tx("nowhere"), 400, unknown("/v1/kernel/tx", TAKING_TRANSACTIONS)],
      [
        await tx("linea"),
        400,
        notAvailable(`linea is not served by this deployment. ${TAKING_TRANSACTIONS}`, "/v1/kernel/tx"),
      ],
      [
        await tx("eth"),
        400,
        notAvailable(`eth is not served by this deployment. ${TAKING_TRANSACTIONS}`, "/v1/kernel/tx"),
      ],
      [
        await tx("matic"),
        503,
        problem(
          503,
          "TX_NOT_CONFIGURED",
          "Transactions unavailable",
          "matic takes no transactions on this deployment",
          "/v1/kernel/tx",
        ),
      ],
      [await sign("nowhere"), 400, unknown("/v1/kernel/sign", SERVED)],
      [await sign("linea"), 400, notAvailable(`linea is not served by this deployment. ${SERVED}`, "/v1/kernel/sign")],
      [await sign("eth"), 400, notAvailable(`eth is not served by this deployment. ${SERVED}`, "/v1/kernel/sign")],
    ];
    for (const [res, status, expected] of cases) expect(body(res)).to.deep.equal([status, expected]);
    close();
  });

  it("Safe accounts: unknown, not a Safe chain, and Safe chains without what Safe requests need", async () => {
    const { send, close } = await setup();
    const safeNotConfigured = (chain: string, instance: string) =>
      problem(
        503,
        "SAFE_NOT_CONFIGURED",
        "Safe accounts unavailable",
        `${chain}: Safe accounts are not configured on this deployment`,
        instance,
      );
    const cases: [request.Response, number, object][] = [
      [
        await send("post", "/v1/nowhere/account", { signers: [SIGNER] }),
        400,
        unknown("/v1/nowhere/account", WITH_SAFES),
      ],
      [await send("post", "/v1/nowhere/accounts", {}), 400, unknown("/v1/nowhere/accounts", WITH_SAFES)],
      [
        await send("get", `/v1/nowhere/account/${SIGNER}/tx/00000000-0000-0000-0000-000000000000`),
        400,
        unknown(`/v1/nowhere/account/${SIGNER}/tx/00000000-0000-0000-0000-000000000000`, WITH_SAFES),
      ],
      [
        await send("post", `/v1/nowhere/account/${SIGNER}/payout/transfer`, { to: TARGET, amount: "1" }),
        400,
        unknown(`/v1/nowhere/account/${SIGNER}/payout/transfer`, WITH_SAFES),
      ],
      [
        await send("post", "/v1/base/account", { signers: [SIGNER] }),
        400,
        notAvailable(`base has no Safe accounts. ${WITH_SAFES}`, "/v1/base/account"),
      ],
      // maticmum: no RPC here; matic: no worker; arb1: an external bundler sends its operations, and Safe requests
      // need the built-in relayer.
      [
        await send("post", "/v1/maticmum/account", { signers: [SIGNER] }),
        503,
        safeNotConfigured("maticmum", "/v1/maticmum/account"),
      ],
      [
        await send("post", "/v1/matic/account", { signers: [SIGNER] }),
        503,
        safeNotConfigured("matic", "/v1/matic/account"),
      ],
      [await send("post", "/v1/arb1/accounts", {}), 503, safeNotConfigured("arb1", "/v1/arb1/accounts")],
    ];
    for (const [res, status, expected] of cases) expect(body(res)).to.deep.equal([status, expected]);
    // A Safe chain with an RPC, a worker, the operator and the contracts takes Safe requests, served by the API or not.
    expect((await send("post", "/v1/eth/account", { signers: [SIGNER] })).status).to.equal(202);
    expect((await send("post", "/v1/localhost/account", { signers: [SIGNER] })).status).to.equal(202);
    close();
  });

  it("the dust interface: unknown, and a chain without an RPC here", async () => {
    const { app, close } = await setup();
    const wallet = (chain: string) => `/api/${TARGET}?chain=${chain}`;
    const cases: [request.Response, number, object][] = [
      [await request(app).get(wallet("nowhere")), 400, unknown(wallet("nowhere"), CONFIGURED)],
      [
        await request(app).get(wallet("linea")),
        400,
        notAvailable(`linea is not configured on this deployment. ${CONFIGURED}`, wallet("linea")),
      ],
    ];
    for (const [res, status, expected] of cases) expect(body(res)).to.deep.equal([status, expected]);
    close();
  });
});
