import htm from "htm";
import { Fragment, type VNode, h } from "preact";
import { render } from "preact-render-to-string";
import { formatEther } from "ethers";
import type { OpenSession } from "./consoleAuth";

const bound = htm.bind(h);

/**
 * The console's templates: htm tagged templates over preact, rendered to a string on the server. Every value put in
 * is escaped as text or as an attribute, so an app's name or a user id can never become markup (issue 38, XSS).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): VNode {
  const result = bound(strings, ...values);
  return Array.isArray(result) ? h(Fragment, null, ...result) : result;
}

/** What a page needs to know of its request: the session (its label and CSRF token), and whether it draws charts. */
export interface PageContext {
  readonly session: OpenSession | undefined;
  readonly charts?: boolean;
}

const NAV: readonly (readonly [string, string])[] = [
  ["/console", "Overview"],
  ["/console/apps", "Apps"],
  ["/console/requests", "Requests"],
  ["/console/webhooks", "Webhooks"],
];

/** A whole page: head (the console's CSS, uPlot's when it charts), navigation, the body, the scripts. */
export function renderPage(title: string, context: PageContext, body: VNode): string {
  const { session, charts } = context;
  const page = html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · idwallet console</title>
      <link rel="stylesheet" href="/console/assets/console.css" />
      ${charts && html`<link rel="stylesheet" href="/console/assets/uPlot.min.css" />`}
    </head>
    <body>
      <header>
        <strong>idwallet console</strong>
        ${
          session &&
          html`<nav>${NAV.map(([href, label]) => html`<a href=${href}>${label}</a>`)}</nav>
            <form method="post" action="/console/logout" class="inline">
              <input type="hidden" name="csrf" value=${session.csrf} />
              <span class="who">${session.label}</span> <button type="submit">Log out</button>
            </form>`
        }
      </header>
      <main>
        <h1>${title}</h1>
        ${body}
      </main>
      ${
        charts &&
        html`<script src="/console/assets/uPlot.iife.min.js"></script>
          <script src="/console/assets/console.js"></script>`
      }
    </body>
  </html>`;
  return `<!doctype html>${render(page)}`;
}

/** A form that posts one console action (to its confirmation step), with the session's CSRF token. */
export function actionForm(
  session: OpenSession,
  action: string,
  fields: Readonly<Record<string, string>>,
  label: string,
  extra?: VNode,
): VNode {
  return html`<form method="post" action=${`/console/actions/${action}`} class="inline">
    <input type="hidden" name="csrf" value=${session.csrf} />
    ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name=${name} value=${value} />`)} ${extra}
    <button type="submit">${label}</button>
  </form>`;
}

/** Wei as ether, to six decimals at most. */
export const ether = (wei: bigint | undefined): string =>
  wei === undefined
    ? "unknown"
    : `${Number(formatEther(wei))
        .toFixed(6)
        .replace(/\.?0+$/, "")} ETH`;

/** Gas with thousands separators. */
export const gas = (value: bigint | number): string => value.toLocaleString("en-US");

/** A time as its date and time, UTC (ISO without the milliseconds). */
export const when = (iso: string | undefined): string => (iso ? `${iso.slice(0, 19).replace("T", " ")} UTC` : "-");

/** A chart the console's script draws with uPlot: its series over shared x values (seconds since the epoch). */
export function chart(spec: {
  readonly title: string;
  readonly x: readonly number[];
  readonly series: readonly {
    readonly label: string;
    readonly values: readonly (number | null)[];
    readonly axis?: "y2";
  }[];
  readonly y: string;
  readonly y2?: string;
}): VNode {
  return html`<figure>
    <figcaption>${spec.title}</figcaption>
    <div class="chart" data-chart=${JSON.stringify(spec)}></div>
  </figure>`;
}

/** `value` (a transaction hash or an address), linked to the chain's explorer when there is one. */
export const onExplorer = (explorer: string | undefined, kind: "tx" | "address", value: string | undefined): VNode =>
  value === undefined
    ? html`-`
    : explorer === undefined
      ? html`<span class="mono">${value}</span>`
      : html`<a class="mono" href=${`${explorer}/${kind}/${value}`} rel="noreferrer">${value}</a>`;
