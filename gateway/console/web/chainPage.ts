import type { VNode } from "preact";
import type { chainPageData } from "../service/chainStatus";
import type { RequestSummary } from "../consoleReads";
import { chart, ether, html, onExplorer, when } from "./consoleMarkup";

/** A table of requests, each linking to its page. */
export const requestTable = (requests: readonly RequestSummary[]): VNode =>
  html`<table class="requests">
    <tr>
      <th>Request</th>
      <th>App</th>
      <th>User id</th>
      <th>Chain</th>
      <th>Status</th>
      <th>Accepted</th>
      <th>Error</th>
    </tr>
    ${requests.map(
      (r) =>
        html`<tr>
          <td class="mono"><a href=${`/console/requests/${encodeURIComponent(r.id)}`}>${r.id}</a></td>
          <td class="mono"><a href=${`/console/apps/${encodeURIComponent(r.appId)}`}>${r.appId}</a></td>
          <td class="mono">${r.userId}</td>
          <td>${r.chain}</td>
          <td class=${r.status === "failed" ? "bad" : r.status === "included" ? "ok" : ""}>${r.status}</td>
          <td>${when(r.createdAt)}</td>
          <td>${r.errorCode ?? ""}</td>
        </tr>`,
    )}
  </table>`;

/** A chain's page: its last hour as a chart, its failures by code, its recent bundles and requests. */
export function chainBody(data: Awaited<ReturnType<typeof chainPageData>>): VNode {
  const { status, series } = data;
  return html`
    <p>
      ${
        `Queued ${status.queue.queued} · submitted ${status.queue.submitted} · bundles in flight ` +
        `${status.queue.pendingBundles} · spent in the last hour ${ether(status.hourSpendWei)} at most`
      }
    </p>
    ${chart({
      title: "Last hour: requests final per minute, and their mean inclusion latency",
      x: series.map((p) => p.at),
      series: [
        { label: "included", values: series.map((p) => p.included) },
        { label: "failed", values: series.map((p) => p.failed) },
        { label: "latency (s)", values: series.map((p) => p.latencySeconds), axis: "y2" },
      ],
      y: "requests / min",
      y2: "seconds",
    })}
    <h2>Failed requests by code (last hour)</h2>
    ${
      data.failures.length === 0
        ? html`<p>None.</p>`
        : html`<table id="failures">
            <tr>
              <th>Code</th>
              <th>Requests</th>
            </tr>
            ${data.failures.map(
              (f) =>
                html`<tr>
                  <td>${f.code}</td>
                  <td>${f.count}</td>
                </tr>`,
            )}
          </table>`
    }
    <h2>Recent bundles</h2>
    <table id="bundles">
      <tr>
        <th>Bundle</th>
        <th>Status</th>
        <th>Transaction</th>
        <th>Block</th>
        <th>Recorded</th>
        <th>Operations</th>
      </tr>
      ${data.bundles.map(
        (b) =>
          html`<tr>
            <td class="mono">${b.id}</td>
            <td>${b.status}</td>
            <td>${onExplorer(data.explorer, "tx", b.txHash)}</td>
            <td>${b.blockNumber ?? "-"}</td>
            <td>${when(b.createdAt)}</td>
            <td>
              ${b.requestIds.map((id) => html`<div class="mono"><a href=${`/console/requests/${encodeURIComponent(id)}`}>${id}</a></div>`)}
            </td>
          </tr>`,
      )}
    </table>
    <h2>Recent requests</h2>
    ${requestTable(data.requests)}
  `;
}
