import ipaddr from "ipaddr.js";
import { createSocket } from "node:dgram";
import { isIPv4, isIPv6 } from "node:net";
import { performance } from "node:perf_hooks";

/** What the nameserver does with a name: answer these addresses (A and AAAA alike), or drop every query for it. */
export type NameAnswer = readonly string[] | "drop";

/** One query the nameserver got. */
export interface ReceivedQuery {
  readonly name: string;
  /** 1: A, 28: AAAA. */
  readonly type: number;
  /** performance.now() when it arrived. */
  readonly at: number;
}

const A = 1;
const AAAA = 28;
const HEADER = 12;

/** The question of a DNS query (RFC 1035 §4.1): its name, type, and where it ends; undefined if it is not one. */
function questionOf(message: Buffer): { name: string; type: number; end: number } | undefined {
  if (message.length < HEADER + 5 || message.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = HEADER;
  while (at < message.length && message[at] !== 0) {
    const length = message[at]!;
    if (length > 63) return undefined;
    labels.push(message.subarray(at + 1, at + 1 + length).toString("latin1"));
    at += 1 + length;
  }
  if (at + 5 > message.length) return undefined;
  return { name: labels.join(".").toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

/** The answer to `query`: its question again, then one record per address of the asked type (none: NXDOMAIN). */
function answerTo(query: Buffer, question: { type: number; end: number }, addresses: readonly string[] | undefined) {
  const family = question.type === A ? isIPv4 : question.type === AAAA ? isIPv6 : () => false;
  const records = (addresses ?? []).filter((address) => family(address));
  const header = Buffer.alloc(HEADER);
  query.copy(header, 0, 0, 2);
  // QR, the query's opcode and RD, AA and RA; RCODE 3 (NXDOMAIN) for a name not served, 0 (with no record) otherwise.
  header.writeUInt16BE(0x8480 | (query.readUInt16BE(2) & 0x7900) | (addresses === undefined ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((address) => {
    const data = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    // The name as a pointer to the question's (offset 12), class IN, a TTL of 0 (nothing kept between look-ups).
    record.writeUInt16BE(0xc000 | HEADER, 0);
    record.writeUInt16BE(question.type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(0, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(HEADER, question.end), ...answers]);
}

/**
 * A real nameserver over UDP on 127.0.0.1 for tests that point the service's resolver at it (WEBHOOK_DNS_SERVERS): it
 * answers the names in `names` (changeable while it runs), drops every query for a name set to "drop" (a nameserver
 * that never answers), answers NXDOMAIN for the rest, and records each query.
 */
export async function startTestNameserver(names: Record<string, NameAnswer> = {}) {
  const socket = createSocket("udp4");
  const queries: ReceivedQuery[] = [];
  socket.on("message", (message, from) => {
    const question = questionOf(message);
    if (question === undefined) return;
    queries.push({ name: question.name, type: question.type, at: performance.now() });
    const served = names[question.name];
    if (served === "drop") return;
    socket.send(answerTo(message, question, served), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    /** The address to give the resolver: 127.0.0.1:port. */
    server: `127.0.0.1:${socket.address().port}`,
    names,
    queries,
    /** The queries for `name` received so far. */
    queriesFor: (name: string): ReceivedQuery[] => queries.filter((query) => query.name === name),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A running test nameserver. */
export type TestNameserver = Awaited<ReturnType<typeof startTestNameserver>>;
