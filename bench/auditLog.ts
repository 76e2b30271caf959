/**
 * Signatures logged per second by the signature audit log, on a database file with the service's settings (WAL,
 * synchronous FULL: every commit is synced): one append per signature, one after another, against the log's group
 * commit with many signers in flight (each records one signature after another), every row tagged under an audit key
 * (AUDIT_LOG_KEY). A markdown table is printed.
 *
 *   npx ts-node bench/auditLog.ts [--seconds=3] [--warmup=1]
 *
 * The database lives in a temporary directory, removed at the end. Exits non-zero if the chain does not verify.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { hexlify, randomBytes } from "ethers";
import { type SignatureAuditEntry, auditKeyFrom, createAuditLog, verifyAuditChain } from "../gateway/custody";
import type { AuditLogRepository } from "../gateway/custody/audit/auditLogRepository";
import { openDatabase } from "../gateway/storage/database";
import { createRepositories } from "../gateway/storage/repositories";
import { argSeconds, machineLine } from "./lib/benchOptions";

/** Entries logged in turn: random digests and signatures, made before the clock starts. */
const ENTRIES: SignatureAuditEntry[] = Array.from({ length: 1024 }, (_, i) => ({
  purpose: "userOperation",
  signer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  digest: hexlify(randomBytes(32)),
  signature: hexlify(randomBytes(65)),
  appId: "app_bench",
  userId: `phone:1415555${String(i).padStart(4, "0")}`,
  chain: "base",
}));

interface Measured {
  readonly perSecond: number;
  readonly transactions: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** `inFlight` callers each logging one entry after another for `seconds`, through `log`. */
async function measure(
  log: (entry: SignatureAuditEntry) => Promise<unknown>,
  counted: { appends: number },
  inFlight: number,
  seconds: number,
): Promise<Measured> {
  const latencies: number[] = [];
  const appendsBefore = counted.appends;
  const start = performance.now();
  const end = start + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await log(ENTRIES[next++ % ENTRIES.length]!);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    transactions: counted.appends - appendsBefore,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

async function main(): Promise<void> {
  const seconds = argSeconds("seconds", 3);
  const warmup = argSeconds("warmup", 1);
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-bench-audit-"));
  const database = await openDatabase(path.join(dir, "audit.sqlite"));
  const rows: string[] = [];
  try {
    const { auditLog } = createRepositories(database.db, () => new Date());
    const counted = { appends: 0 };
    // The repository's appends, counted: one each is one transaction.
    const repository: Pick<AuditLogRepository, "append"> = {
      append: (entries, at, key) => {
        counted.appends += 1;
        return auditLog.append(entries, at, key);
      },
    };
    // Chained under an AUDIT_LOG_KEY, as a deployment's log is: one HMAC a row, and one for the mark a transaction.
    const key = auditKeyFrom(hexlify(randomBytes(32)).slice(2));
    const log = createAuditLog(repository, () => new Date(), key);
    const scenarios = [
      {
        name: "one append per signature",
        inFlight: 1,
        record: (e: SignatureAuditEntry) => repository.append([e], new Date(), key),
      },
      ...[1, 16, 256, 1024].map((inFlight) => ({
        name: "group commit (createAuditLog)",
        inFlight,
        record: log.record,
      })),
    ];
    for (const scenario of scenarios) {
      await measure(scenario.record, counted, scenario.inFlight, warmup);
      const r = await measure(scenario.record, counted, scenario.inFlight, seconds);
      const perSecond = Math.round(r.perSecond);
      rows.push(
        `| ${scenario.name} | ${scenario.inFlight} | ${perSecond.toLocaleString("en-US")} | ` +
          `${Math.round(r.transactions / seconds).toLocaleString("en-US")} | ` +
          `${(r.perSecond / (r.transactions / seconds)).toFixed(1)} | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms |`,
      );
    }
    const verdict = await verifyAuditChain(auditLog.rows(), undefined, key);
    if (!verdict.ok) throw new Error(`the chain does not verify: row ${verdict.brokenAt}: ${verdict.reason}`);
    rows.push("", `The chain verifies: ${verdict.count.toLocaleString("en-US")} rows.`);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    [
      "## Signature audit log: signatures logged per second",
      "",
      machineLine(),
      "",
      `A database file with the service's settings (WAL, synchronous FULL); ${seconds} s per row after ${warmup} s ` +
        'of warm-up; each of "in flight" callers logs one signature after another and waits for its commit.',
      "",
      "| Appender | In flight | Signatures/s | Transactions/s | Rows per transaction | p50 latency | p99 latency |",
      "| --- | --: | --: | --: | --: | --: | --: |",
      ...rows,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
