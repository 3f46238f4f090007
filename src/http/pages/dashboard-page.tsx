/**
 * GET /sandbox: the merchant dashboard. The server renders the frame; the inline script
 * (browser/dashboard.ts, compiled into dist/browser by the build) fills it through the control API.
 */
import { Hono } from 'hono';
import { raw } from 'hono/html';
import { Code } from '../../domain/codes.js';
import type { AppEnv } from '../context.js';
import { bindRoute } from '../contract/route.js';
import { send } from '../envelope.js';
import { builtScript } from './browser-scripts.js';
import { basePathOf, Document, sendPage } from './layout.js';
import * as contracts from './pages.routes.js';
import { BASE_CSS, DASHBOARD_CSS } from './styles.js';

const STATUS_FILTERS = [
  ['', 'All statuses'],
  ['P', 'P · pending'],
  ['W', 'W · waiting'],
  ['A', 'A · paid'],
  ['F', 'F · failed'],
  ['E', 'E · expired'],
  ['V', 'V · voided'],
] as const;

function DashboardDocument({ nonce, basePath, script }: { nonce: string; basePath: string; script: string }) {
  return (
    <Document title="payreq-sandbox · dashboard" nonce={nonce} css={BASE_CSS + DASHBOARD_CSS}>
      <header class="top">
        <h1>Merchant dashboard</h1>
        <div class="who" id="who" hidden>
          <span id="merchant"></span>
          <span id="clock"></span>
          <button type="button" id="forget" class="secondary small">
            Forget key
          </button>
        </div>
      </header>
      <main class="dashboard" id="dashboard" data-control-root={`${basePath}/sandbox/v1`} data-public-root={`${basePath}/openapi/v1`}>
        <section class="panel login" id="login">
          <h2>Open your sandbox</h2>
          <p class="hint">
            Enter your merchant's <code>Service-Api-Key</code>. It stays in this browser tab (sessionStorage, gone when the tab closes) and is sent only as the{' '}
            <code>Service-Api-Key</code> header to this sandbox's control API: never in a URL. The demo merchant's key is printed when the sandbox starts and listed
            in the README.
          </p>
          {/* The input has no name: even without the script, the key is never submitted anywhere. */}
          <form id="key-form" autocomplete="off">
            <input id="key-input" type="password" aria-label="Service-Api-Key" placeholder="sk_sandbox_…" autocomplete="off" spellcheck={false} required />
            <button type="submit" class="primary">
              Open dashboard
            </button>
          </form>
          <div id="login-error"></div>
          <noscript>
            <div class="notice error">The dashboard needs JavaScript: it sends your key from this page as a header, never through the URL.</div>
          </noscript>
        </section>

        <div id="app" hidden>
          <section class="panel">
            <h2>Sandbox controls</h2>
            <div class="toolbar">
              <button type="button" id="refresh" class="secondary">
                Refresh
              </button>
              <label class="hint">
                <input type="checkbox" id="auto-refresh" /> every 5 s
              </label>
              <span class="sep"></span>
              <button type="button" id="settle-all" class="secondary">
                Settle all
              </button>
              <input type="number" id="advance-seconds" aria-label="Seconds to advance the clock" title="seconds" value="900" min="1" step="1" />
              <span class="hint">s</span>
              <button type="button" id="advance" class="secondary">
                Advance clock
              </button>
              <span class="sep"></span>
              <button type="button" id="reset" class="danger">
                Reset merchant
              </button>
            </div>
            <div id="message" aria-live="polite"></div>
          </section>

          <section class="panel">
            <h2>
              <span>
                Payments <span class="count" id="payments-count"></span>
              </span>
              <select id="status-filter" aria-label="Filter by status">
                {STATUS_FILTERS.map(([value, label]) => (
                  <option value={value}>{label}</option>
                ))}
              </select>
            </h2>
            <div class="table-wrap">
              <table id="payments">
                <thead>
                  <tr>
                    <th>QR</th>
                    <th>Reference / payment_id</th>
                    <th>Amount</th>
                    <th>Status</th>
                    <th>Created (sandbox time)</th>
                    <th>Payer</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody id="payments-body"></tbody>
              </table>
            </div>
          </section>

          <section class="panel readiness">
            <h2>
              <span>
                Go-live readiness <span class="count" id="readiness-verdict"></span>
              </span>
              <button type="button" id="refresh-readiness" class="secondary small">
                Check again
              </button>
            </h2>
            <p class="hint">Judged from what your integration really did here (GET /sandbox/v1/readiness); each open check says what to try.</p>
            <div id="readiness"></div>
          </section>

          <section class="panel journal">
            <h2>
              <span>
                Request journal <span class="count" id="journal-count"></span>
              </span>
              <span class="toolbar">
                <label class="hint">
                  <input type="checkbox" id="journal-reads" /> show GETs of /sandbox/v1
                </label>
                <button type="button" id="refresh-journal" class="secondary small">
                  Refresh
                </button>
                <button type="button" id="clear-journal" class="danger small" hidden>
                  Clear
                </button>
              </span>
            </h2>
            <div id="journal"></div>
          </section>
        </div>
      </main>
      <script nonce={nonce}>{raw(script)}</script>
    </Document>
  );
}

const NOT_BUILT = "The dashboard's script is not built (dist/browser/dashboard.js is missing): run npm run build, then reload this page.";

/** `script` is the compiled dashboard script, or null when it is not built; tests give their own. */
export function dashboardRoutes(script: () => string | null = () => builtScript('dashboard')): Hono<AppEnv> {
  script(); // read at start, not on the first visit
  const routes = new Hono<AppEnv>();
  bindRoute(routes, contracts.dashboard, (c) => {
    const js = script();
    if (js === null) return send(c, { code: Code.INTERNAL, description: NOT_BUILT });
    return sendPage(c, (nonce) => <DashboardDocument nonce={nonce} basePath={basePathOf(c)} script={js} />);
  });
  return routes;
}
