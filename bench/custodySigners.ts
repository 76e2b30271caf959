/**
 * Signatures per second of the key-custody signers: a secp256k1 key in a SoftHSM2 token (PKCS#11, CKM_ECDSA, signed
 * on libuv's worker threads) against the same key in this process, one signature at a time and with many in flight,
 * over 1 to 4 sessions. A markdown table of the results is printed.
 *
 *   npx ts-node bench/custodySigners.ts [--seconds=3] [--warmup=1]
 *
 * Needs SoftHSM2 (/usr/lib/softhsm/libsofthsm2.so); the token lives in a temporary directory, removed at the end.
 * UV_THREADPOOL_SIZE (default 4) bounds the signatures a token works on at once. Exits non-zero if a signature
 * does not recover to the key's address.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { hexlify, keccak256, randomBytes, recoverAddress, toUtf8Bytes } from "ethers";
import { type CustodySigner, loadSigner, parseSignerReference } from "../gateway/custody";
import { createDigestSigner } from "../gateway/crypto/digestSigner";
import { SOFTHSM2_MODULE, createSoftHsmToken } from "../scripts/softhsm";
import { argSeconds, machineLine } from "./lib/benchOptions";

const PRIVATE_KEY = keccak256(toUtf8Bytes("custody bench key"));
const PIN = "bench-pin-1234";
const CHECKED_SIGNATURES = 50;
/** Digests signed in turn: random, made before the clock starts. */
const DIGESTS = Array.from({ length: 1024 }, () => randomBytes(32));

interface Scenario {
  readonly signer: string;
  readonly sessions: number | undefined;
  readonly inFlight: number;
  readonly open: () => Promise<CustodySigner>;
}

interface Measured {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMicrosPerSignature: number;
  /** Undefined when the signer signs on the event loop itself: then no timer runs until it is done. */
  readonly loopDelayP99Ms: number | undefined;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Signs for `seconds` with `inFlight` callers each signing one digest after another. */
async function measure(signer: CustodySigner, inFlight: number, seconds: number): Promise<Measured> {
  const latencies: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  let next = 0;
  loop.enable();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const digest = DIGESTS[next++ % DIGESTS.length]!;
        const t0 = performance.now();
        await signer.sign(digest);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  loop.disable();
  const elapsed = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    cpuMicrosPerSignature: (used.user + used.system) / latencies.length,
    loopDelayP99Ms: loop.count > 0 ? loop.percentile(99) / 1e6 : undefined,
  };
}

/** Fails unless the signer's signatures recover to its address. */
async function check(signer: CustodySigner): Promise<void> {
  for (const digest of DIGESTS.slice(0, CHECKED_SIGNATURES)) {
    const recovered = recoverAddress(hexlify(digest), await signer.sign(digest));
    if (recovered !== signer.address) throw new Error(`${signer.description}: a signature recovers to ${recovered}`);
  }
}

/** The one synchronous in-process signer, wrapped in the interface only to be timed the same way. */
function inProcessSync(): CustodySigner {
  const signer = createDigestSigner(PRIVATE_KEY);
  return { address: signer.address, description: "in-process", sign: async (digest) => signer.sign(digest) };
}

async function main(): Promise<void> {
  const seconds = argSeconds("seconds", 3);
  const warmup = argSeconds("warmup", 1);
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-bench-softhsm-"));
  const rows: string[] = [];
  try {
    createSoftHsmToken({ dir, label: "bench", pin: PIN, keys: [{ label: "key", privateKey: PRIVATE_KEY }] });
    const pkcs11 = (sessions: number) => () =>
      loadSigner(
        parseSignerReference("BENCH_KEY", `pkcs11:token=bench;object=key?pin-value=${PIN}`, {
          pkcs11Module: SOFTHSM2_MODULE,
        }),
        { pkcs11Sessions: sessions },
      );
    const env = () => loadSigner(parseSignerReference("BENCH_KEY", PRIVATE_KEY));
    const scenarios: Scenario[] = [
      {
        signer: "in-process key (createDigestSigner)",
        sessions: undefined,
        inFlight: 1,
        open: async () => inProcessSync(),
      },
      { signer: "in-process key (env signer, async)", sessions: undefined, inFlight: 1, open: env },
      { signer: "SoftHSM2 (PKCS#11)", sessions: 1, inFlight: 1, open: pkcs11(1) },
      { signer: "SoftHSM2 (PKCS#11)", sessions: 1, inFlight: 16, open: pkcs11(1) },
      { signer: "SoftHSM2 (PKCS#11)", sessions: 2, inFlight: 16, open: pkcs11(2) },
      { signer: "SoftHSM2 (PKCS#11)", sessions: 4, inFlight: 16, open: pkcs11(4) },
      { signer: "SoftHSM2 (PKCS#11)", sessions: 4, inFlight: 64, open: pkcs11(4) },
    ];
    for (const scenario of scenarios) {
      const signer = await scenario.open();
      try {
        await check(signer);
        await measure(signer, scenario.inFlight, warmup);
        const r = await measure(signer, scenario.inFlight, seconds);
        rows.push(
          `| ${scenario.signer} | ${scenario.sessions ?? "–"} | ${scenario.inFlight} | ${Math.round(r.perSecond).toLocaleString("en-US")} | ` +
            `${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms | ${Math.round(r.cpuMicrosPerSignature)} µs | ` +
            `${r.loopDelayP99Ms === undefined ? "all (signs on it)" : `${r.loopDelayP99Ms.toFixed(1)} ms`} |`,
        );
      } finally {
        await signer.close?.();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    [
      "## Key-custody signers: signatures per second",
      "",
      machineLine(),
      "",
      `One secp256k1 key; ${seconds} s per row after ${warmup} s of warm-up; each of "in flight" callers signs one ` +
        "random 32-byte digest after another. SoftHSM2 signs in this process on libuv's worker threads " +
        `(UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? "4, the default"}). CPU: this process's CPU time ` +
        "per signature, the token's work included. Event-loop delay: how late the loop ran timers meanwhile (what " +
        "signing costs everything else the process does); an in-process key signs on the loop itself, its CPU time " +
        "per signature during which nothing else runs (back to back here, so no timer ran at all).",
      "",
      "| Signer | Sessions | In flight | Signatures/s | p50 latency | p99 latency | CPU / signature | Event-loop delay p99 |",
      "| --- | --: | --: | --: | --: | --: | --: | --: |",
      ...rows,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
