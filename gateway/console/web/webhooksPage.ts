import type { VNode } from "preact";
import type { FailingEndpoint } from "../service/consoleViews";
import type { OpenSession } from "./consoleAuth";
import { actionForm, html, when } from "./consoleMarkup";

/** The failing and disabled webhook endpoints, their last attempts and errors; enable a disabled one. */
export function webhooksBody(failing: readonly FailingEndpoint[], session: OpenSession): VNode {
  if (failing.length === 0) return html`<p>No endpoint is failing or disabled.</p>`;
  return html`${failing.map(
    ({ endpoint, attempts }) =>
      html`<div class="card endpoint">
        <div>
          <code>${endpoint.id}</code> of app
          <a href=${`/console/apps/${encodeURIComponent(endpoint.appId)}`}>${endpoint.appId}</a>:
          <code>${endpoint.url}</code>
        </div>
        <div>
          <strong class=${endpoint.status === "disabled" ? "bad" : "warn"}>${endpoint.status}</strong>
          ${endpoint.disabledReason && ` (${endpoint.disabledReason})`} · ${endpoint.consecutiveFailures} failure(s) in
          a row since ${when(endpoint.failingSince)}
          ${endpoint.status === "disabled" && actionForm(session, "webhook-enable", { target: endpoint.id }, "Enable")}
        </div>
        <table>
          <tr>
            <th>When</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Outcome</th>
            <th>HTTP</th>
            <th>Error</th>
          </tr>
          ${attempts.map(
            (a) =>
              html`<tr>
                <td>${when(a.at)}</td>
                <td class="mono">${a.eventType} ${a.eventId}</td>
                <td>${a.attempt}</td>
                <td>${a.outcome}</td>
                <td>${a.statusCode ?? "-"}</td>
                <td>${a.error ?? ""}</td>
              </tr>`,
          )}
        </table>
      </div>`,
  )}`;
}
