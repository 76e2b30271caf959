import type { VNode } from "preact";
import { isSafeRecord } from "../../transactions/txRecord";
import type { RequestLife } from "../service/consoleViews";
import type { OpenSession } from "./consoleAuth";
import { actionForm, gas, html, onExplorer, when } from "./consoleMarkup";

/** One request's life: accepted, built, its bundle, inclusion or failure, its webhook deliveries; cancel while queued. */
export function requestBody(life: RequestLife, session: OpenSession): VNode {
  const { record, bundle } = life;
  const never = record.status === "queued" && record.attempts === 0;
  return html`
    <table id="request">
      <tr>
        <th>Id</th>
        <td class="mono">${record.id}</td>
      </tr>
      <tr>
        <th>App</th>
        <td><a href=${`/console/apps/${encodeURIComponent(record.appId)}`}>${life.app?.name ?? record.appId}</a></td>
      </tr>
      <tr>
        <th>Chain</th>
        <td><a href=${`/console/chains/${encodeURIComponent(record.chain)}`}>${record.chain}</a></td>
      </tr>
      <tr>
        <th>Account</th>
        <td class="mono">${record.accountType} ${onExplorer(life.explorer, "address", record.sender)}</td>
      </tr>
      <tr>
        <th>User id</th>
        <td class="mono">${isSafeRecord(record) ? "(a Safe of the app)" : record.userId}</td>
      </tr>
      <tr>
        <th>Status</th>
        <td id="status" class=${record.status === "failed" ? "bad" : record.status === "included" ? "ok" : ""}>
          ${record.status}${record.success === false ? " (calls reverted)" : ""}
        </td>
      </tr>
      <tr>
        <th>Accepted</th>
        <td>${when(record.createdAt)}</td>
      </tr>
      <tr>
        <th>Built</th>
        <td>${record.attempts} time(s); next attempt ${when(record.nextAttemptAt)}</td>
      </tr>
      <tr>
        <th>Last change</th>
        <td>${when(record.updatedAt)}</td>
      </tr>
      <tr>
        <th>Transaction</th>
        <td>
          ${onExplorer(life.explorer, "tx", record.transactionHash)}
          ${record.blockNumber !== undefined ? ` (block ${record.blockNumber})` : ""}
        </td>
      </tr>
      <tr>
        <th>Gas</th>
        <td>
          ${`reserved ${gas(record.reservedGas ?? 0n)} · cost `}
          ${record.settledGas === undefined ? "-" : gas(record.settledGas)}
        </td>
      </tr>
      <tr>
        <th>Error</th>
        <td>${record.error ? `${record.error.code}: ${record.error.message}` : "-"}</td>
      </tr>
    </table>
    ${
      never &&
      html`<p>
        Still queued and never built: ${actionForm(session, "cancel", { target: record.id }, "Cancel request")}
      </p>`
    }
    <h2>Bundle</h2>
    ${
      bundle
        ? html`<table id="bundle">
            <tr>
              <th>Bundle</th>
              <th>Status</th>
              <th>Transaction</th>
              <th>Block</th>
              <th>Operations</th>
            </tr>
            <tr>
              <td class="mono">${bundle.id}</td>
              <td>${bundle.status}</td>
              <td>${onExplorer(life.explorer, "tx", bundle.txHash)}</td>
              <td>${bundle.blockNumber ?? "-"}</td>
              <td>${bundle.requestIds.length}</td>
            </tr>
          </table>`
        : html`<p>
            Not in a bundle${record.transactionHash ? " (sent by an external bundler or relayed alone)" : ""}.
          </p>`
    }
    <h2>Webhook deliveries</h2>
    ${
      life.deliveries.length === 0
        ? html`<p>None.</p>`
        : html`<table id="deliveries">
            <tr>
              <th>Event</th>
              <th>Endpoint</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last attempt</th>
              <th></th>
            </tr>
            ${life.deliveries.map(
              (d) =>
                html`<tr>
                  <td class="mono">${d.eventType} ${d.eventId}</td>
                  <td class="mono">${d.url}</td>
                  <td>${d.status}</td>
                  <td>${d.attempts}</td>
                  <td>${when(d.lastAttemptAt)} ${d.lastStatusCode ?? ""} ${d.lastError ?? ""}</td>
                  <td>${actionForm(session, "redeliver", { target: d.eventId }, "Redeliver")}</td>
                </tr>`,
            )}
          </table>`
    }
  `;
}

/** The request search across every app: by id, user id or status. */
export const requestSearchForm = (query: { readonly q?: string; readonly status?: string }): VNode =>
  html`<form method="get" action="/console/requests" id="request-search">
    <input type="text" name="q" value=${query.q ?? ""} placeholder="request id or user id" size="50" />
    <select name="status">
      ${["", "queued", "submitted", "included", "failed"].map(
        (s) => html`<option value=${s} selected=${query.status === s}>${s || "any status"}</option>`,
      )}
    </select>
    <button type="submit">Find</button>
  </form>`;
