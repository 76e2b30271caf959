import type { VNode } from "preact";
import type { Overview } from "../service/consoleViews";
import type { ChainStatus } from "../service/chainStatus";
import type { OpenSession } from "./consoleAuth";
import { actionForm, ether, html, when } from "./consoleMarkup";

/** A duration in hours as a person reads it: hours under two days, then days, then years. */
const duration = (hours: number): string =>
  hours < 48 ? `${hours.toFixed(1)} h` : hours < 24 * 730 ? `${Math.floor(hours / 24)} days` : "over 2 years";

const runway = (hours: number | undefined): VNode =>
  hours === undefined
    ? html`<span>no spend in the last hour</span>`
    : html`<span class=${hours < 24 ? "bad" : hours < 72 ? "warn" : "ok"}
        >${duration(hours)} at the last hour's spend</span
      >`;

const reachability = (chain: ChainStatus): VNode =>
  chain.reachable === undefined
    ? html`<span class="warn">not checked yet</span>`
    : html`<span class=${chain.reachable ? "ok" : "bad"}>${chain.reachable ? "reachable" : "unreachable"}</span>
        <small> (${when(chain.checkedAt)})</small>`;

/** One chain's row of the overview. */
const chainRow = (chain: ChainStatus): VNode =>
  html`<tr>
    <td><a href=${`/console/chains/${encodeURIComponent(chain.chain)}`}>${chain.chain}</a></td>
    <td>${reachability(chain)}</td>
    <td>
      ${chain.funds.length === 0 && "-"}
      ${chain.funds.map((f) => html`<div>${f.label}: <strong>${ether(f.wei)}</strong> · ${runway(f.hoursLeft)}</div>`)}
      <small>spent in the last hour: ${ether(chain.hourSpendWei)} at most</small>
    </td>
    <td>${chain.queue.queued}</td>
    <td>${chain.queue.submitted}</td>
    <td>${chain.queue.pendingBundles}</td>
    <td>${when(chain.queue.oldestQueuedAt)}</td>
  </tr>`;

/** The overview: chains, webhooks, audit log, maintenance and its switch, the latest operator actions. */
export function overviewBody(data: Overview, session: OpenSession): VNode {
  const { maintenance, audit, webhooks } = data;
  return html`
    <div class=${maintenance.enabled ? "notice" : "card"} id="maintenance">
      Maintenance: <strong>${maintenance.enabled ? "on" : "off"}</strong>
      ${maintenance.message && html` — “${maintenance.message}”`}
      ${
        maintenance.enabled
          ? actionForm(session, "maintenance-off", {}, "Leave maintenance")
          : actionForm(
              session,
              "maintenance-on",
              {},
              "Enter maintenance",
              html`<input type="text" name="message" placeholder="message (optional)" maxlength="500" />`,
            )
      }
    </div>
    <h2>Chains</h2>
    <table id="chains">
      <tr>
        <th>Chain</th>
        <th>RPC</th>
        <th>Funds</th>
        <th>Queued</th>
        <th>Submitted</th>
        <th>Bundles in flight</th>
        <th>Oldest queued</th>
      </tr>
      ${data.chains.map(chainRow)}
    </table>
    <h2>Webhooks</h2>
    <p>
      Backlog: <strong>${webhooks.pending}</strong>
      ${` deliveries owed${webhooks.oldestEventAt ? `, oldest event ${when(webhooks.oldestEventAt)}` : ""} · `}
      <a href="/console/webhooks">failing endpoints</a>
    </p>
    <h2>Signature audit log</h2>
    <p>
      Rows: <strong>${audit.rows}</strong>
      ${
        ` · newest ${when(audit.newestAt)} · last verified ` +
        (audit.lastVerifiedAt ? when(audit.lastVerifiedAt) : "never (npm run admin -- audit verify)")
      }
    </p>
    <h2>Latest operator actions</h2>
    <table id="actions">
      <tr>
        <th>When</th>
        <th>Who</th>
        <th>Action</th>
        <th>On</th>
        <th>Detail</th>
        <th>Result</th>
      </tr>
      ${data.actions.map(
        (a) =>
          html`<tr>
            <td>${when(a.at)}</td>
            <td>${a.who}</td>
            <td>${a.action}</td>
            <td class="mono">${a.target}</td>
            <td>${a.detail ?? ""}</td>
            <td>${a.result}</td>
          </tr>`,
      )}
    </table>
  `;
}
