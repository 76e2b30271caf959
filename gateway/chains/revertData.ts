/** The revert data an RPC error carries (eth_call / eth_estimateGas), wherever the node and ethers put it. */
export function revertDataOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const visit = (value: unknown): string | undefined => {
    if (typeof value !== "object" || value === null || seen.has(value)) return undefined;
    seen.add(value);
    const record = value as Record<string, unknown>;
    if (typeof record.data === "string" && /^0x([0-9a-fA-F]{2})*$/.test(record.data) && record.data.length >= 10)
      return record.data;
    for (const key of ["data", "error", "info", "cause"]) {
      const found = visit(record[key]);
      if (found) return found;
    }
    return undefined;
  };
  return visit(error);
}

/** Whether an RPC failure says nothing about the request (timeout, connection), so it may have gone through. */
export function isTransportError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "TIMEOUT" || code === "NETWORK_ERROR" || code === "SERVER_ERROR" || code === "ECONNREFUSED";
}

/** A short description of an RPC failure for logs: ethers' short message and the node's, never the payload. */
export function rpcErrorMessage(error: unknown): string {
  const e = error as { shortMessage?: string; message?: string; info?: { error?: { message?: string } } } | null;
  const node = e?.info?.error?.message;
  const own = e?.shortMessage ?? e?.message ?? String(error);
  return (node && !own.includes(node) ? `${own}: ${node}` : own).slice(0, 500);
}
