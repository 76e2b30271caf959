import type { VNode } from "preact";
import { html } from "./consoleMarkup";

/**
 * The login form: a one-time link's page posts the link's secret (so a link preview that fetches the URL uses nothing
 * up), else the operator pastes CONSOLE_TOKEN. Either opens a session; an app's token opens nothing.
 */
export function loginBody(message: string | undefined, link: string | undefined): VNode {
  return html`
    ${message && html`<p class="notice" id="login-message">${message}</p>`}
    ${
      link
        ? html`<form method="post" action="/console/login" id="link-login">
            <input type="hidden" name="link" value=${link} />
            <button type="submit">Open the console</button>
          </form>`
        : html`<form method="post" action="/console/login" id="token-login">
            <label>Console token <input type="password" name="token" autocomplete="off" size="50" /></label>
            <button type="submit">Log in</button>
            <p>Or open a one-time link from <code>npm run admin -- console open</code>.</p>
          </form>`
    }
  `;
}
