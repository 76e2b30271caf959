import type { VNode } from "preact";
import { formatRate } from "../../config/policySettings";
import type { AppSummary, appPageData } from "../service/consoleViews";
import type { OpenSession } from "./consoleAuth";
import { requestTable } from "./chainPage";
import { actionForm, chart, gas, html } from "./consoleMarkup";

/** An app's budget use on each chain against its budget. */
const usage = (summary: AppSummary): VNode =>
  summary.usage.length === 0
    ? html`<span>nothing spent this period</span>`
    : html`${summary.usage.map((u) => html`<div>${u.chain}: ${gas(u.usedGas)} / ${gas(u.budgetGas)} gas</div>`)}`;

/** Every app: status, test mode, budget and its use, rate, policy, providers, webhook endpoints. */
export function appsBody(summaries: readonly AppSummary[]): VNode {
  return html`<table id="apps">
    <tr>
      <th>App</th>
      <th>Status</th>
      <th>Test mode</th>
      <th>Budget use (this period)</th>
      <th>Rate</th>
      <th>Providers</th>
      <th>Webhook endpoints</th>
    </tr>
    ${summaries.map(
      (s) =>
        html`<tr>
          <td>
            <a href=${`/console/apps/${encodeURIComponent(s.app.id)}`}>${s.app.name}</a>
            <div class="mono">${s.app.id}</div>
          </td>
          <td class=${s.app.status === "disabled" ? "bad" : "ok"}>${s.app.status}</td>
          <td>${s.app.testMode ? "on" : "off"}</td>
          <td>${usage(s)}</td>
          <td>${formatRate(s.policy.rate)}</td>
          <td>${s.providers.map((p) => p.provider).join(", ") || "-"}</td>
          <td>${s.endpoints.length}</td>
        </tr>`,
    )}
  </table>`;
}

/** One app: its settings and actions, its budget chart, its endpoints, its requests with the search form. */
export function appBody(
  data: NonNullable<Awaited<ReturnType<typeof appPageData>>>,
  query: { readonly q?: string; readonly status?: string },
  session: OpenSession,
): VNode {
  const { summary, series } = data;
  const { app, policy } = summary;
  return html`
    <div class="card" id="app-settings">
      <div>Name: <strong>${app.name}</strong> · id <code>${app.id}</code> · client id <code>${app.clientId}</code></div>
      <div>
        Status: <strong class=${app.status === "disabled" ? "bad" : "ok"}>${app.status}</strong>
        ${
          app.status === "active"
            ? actionForm(session, "app-disable", { target: app.id }, "Disable app")
            : actionForm(session, "app-enable", { target: app.id }, "Enable app")
        }
      </div>
      <div>
        Test mode: ${app.testMode ? "on" : "off"} · rate ${formatRate(policy.rate)} · period ${policy.periodSeconds} s
      </div>
      <div>
        ${
          `Chains: ${policy.chains?.join(", ") ?? "any"} · targets: ${policy.targets?.join(", ") ?? "any"} · ` +
          `user daily cap: ${policy.userDailyCapGas === undefined ? "none" : `${gas(policy.userDailyCapGas)} gas`}`
        }
      </div>
      <div>
        Budget: <strong>${gas(policy.budgetGas)}</strong> gas per chain and period
        ${app.policy.budgetGas === undefined ? " (the deployment's default)" : ""}
        ${actionForm(
          session,
          "app-budget",
          { target: app.id },
          "Set budget",
          html`<input type="text" name="budget" inputmode="numeric" placeholder="gas, or default" size="14" />`,
        )}
      </div>
      <div>Providers: ${summary.providers.map((p) => p.provider).join(", ") || "none"}</div>
    </div>
    ${chart({
      title: "Budget use over the last day (gas counted in the period ending at each point, all chains)",
      x: series.at,
      series: [
        { label: "used", values: series.used },
        { label: "budget (per chain)", values: series.budget },
      ],
      y: "gas",
    })}
    <h2>Webhook endpoints</h2>
    <table id="endpoints">
      <tr>
        <th>Endpoint</th>
        <th>URL</th>
        <th>Status</th>
        <th>Failures in a row</th>
      </tr>
      ${summary.endpoints.map(
        (e) =>
          html`<tr>
            <td class="mono">${e.id}</td>
            <td class="mono">${e.url}</td>
            <td>${e.status}${e.disabledReason ? ` (${e.disabledReason})` : ""}</td>
            <td>${e.consecutiveFailures}</td>
          </tr>`,
      )}
    </table>
    <h2>Requests</h2>
    <form method="get" action=${`/console/apps/${encodeURIComponent(app.id)}`} id="request-search">
      <input type="text" name="q" value=${query.q ?? ""} placeholder="request id or user id" size="40" />
      <select name="status">
        ${["", "queued", "submitted", "included", "failed"].map(
          (s) => html`<option value=${s} selected=${query.status === s}>${s || "any status"}</option>`,
        )}
      </select>
      <button type="submit">Search</button>
    </form>
    ${requestTable(data.requests)}
  `;
}
