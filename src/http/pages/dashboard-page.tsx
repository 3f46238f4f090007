/**
 * GET /sandbox: the merchant dashboard. The server renders the frame (every panel, form and label);
 * the browser modules (browser/*.ts, compiled into dist/browser by the build and served under
 * /sandbox/assets/) fill it through the control API with the key the tab keeps.
 */
import { Hono } from 'hono';
import { Code } from '../../domain/codes.js';
import type { AppEnv } from '../context.js';
import { bindRoute } from '../contract/route.js';
import { send } from '../envelope.js';
import { baseUrlOf } from '../base-url.js';
import { builtModules } from './browser-scripts.js';
import { CreatePanel, FaultsPanel, WebhooksPanel } from './dashboard-forms.js';
import { DetailPanel, GoLivePanel, JournalPanel, PaymentsPanel } from './dashboard-panels.js';
import { basePathOf, Document, sendPage } from './layout.js';
import * as contracts from './pages.routes.js';
import { BASE_CSS, DASHBOARD_CSS } from './styles.js';

const SECTIONS = [
  ['payments-panel', 'Payments'],
  ['create-panel', 'Create'],
  ['webhooks-panel', 'Webhooks'],
  ['journal-panel', 'Request log'],
  ['faults-panel', 'Faults'],
  ['golive-panel', 'Clock and go-live'],
] as const;

interface FrameProps {
  readonly nonce: string;
  readonly basePath: string;
  readonly baseUrl: string;
  readonly productTypes: readonly string[];
}

function Login() {
  return (
    <section class="panel login" id="login">
      <h2>Open your sandbox</h2>
      <p class="hint">
        Enter your merchant's <code>Service-Api-Key</code>. It stays in this browser tab (sessionStorage, gone when the tab closes) and is sent only as the{' '}
        <code>Service-Api-Key</code> header to this sandbox's API: never in a URL or a cookie. The demo merchant's key is printed when the sandbox starts.
      </p>
      {/* The input has no name: even without the script, the key is never submitted anywhere. */}
      <form id="key-form" autocomplete="off">
        <label for="key-input" class="visually-hidden">
          Service-Api-Key
        </label>
        <input id="key-input" type="password" placeholder="sk_sandbox_…" autocomplete="off" spellcheck={false} required />
        <button type="submit" class="primary">
          Open dashboard
        </button>
      </form>
      <div id="login-error"></div>
      <noscript>
        <div class="notice error">The dashboard needs JavaScript: it sends your key from this page as a header, never through the URL.</div>
      </noscript>
    </section>
  );
}

function Toolbar() {
  return (
    <section class="panel" aria-label="Sandbox controls">
      <div class="toolbar">
        <button type="button" id="refresh" class="secondary">
          Refresh
        </button>
        <label class="check-label">
          <input type="checkbox" id="live" checked /> live updates
        </label>
        <span class="sep"></span>
        <button type="button" id="settle-all" class="secondary">
          Settle all
        </button>
        <button type="button" id="reset" class="danger">
          Reset merchant
        </button>
      </div>
      <div id="message" aria-live="polite"></div>
    </section>
  );
}

function DashboardDocument({ nonce, basePath, baseUrl, productTypes }: FrameProps) {
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
      <main class="dashboard" id="dashboard" data-control-root={`${basePath}/sandbox/v1`} data-public-root={`${basePath}/openapi/v1`} data-base-url={baseUrl}>
        <Login />
        <div id="app" hidden>
          <nav class="sections" aria-label="Sections">
            {SECTIONS.map(([id, label]) => (
              <a href={`#${id}`}>{label}</a>
            ))}
          </nav>
          <Toolbar />
          <DetailPanel />
          <PaymentsPanel />
          <CreatePanel productTypes={productTypes} />
          <WebhooksPanel />
          <JournalPanel />
          <FaultsPanel />
          <GoLivePanel />
        </div>
      </main>
      <script type="module" nonce={nonce} src={`${basePath}/sandbox/assets/dashboard.js`}></script>
    </Document>
  );
}

const NOT_BUILT = "The dashboard's script is not built (dist/browser/dashboard.js is missing): run npm run build, then reload this page.";

/** `modules` are the compiled browser modules by file name; tests give their own. */
export function dashboardRoutes(modules: () => ReadonlyMap<string, string> = builtModules): Hono<AppEnv> {
  modules(); // read at start, not on the first visit
  const routes = new Hono<AppEnv>();
  bindRoute(routes, contracts.dashboard, (c) => {
    if (!modules().has('dashboard.js')) return send(c, { code: Code.INTERNAL, description: NOT_BUILT });
    const props = { basePath: basePathOf(c), baseUrl: baseUrlOf(c), productTypes: c.get('services').config.productTypes };
    return sendPage(c, (nonce) => <DashboardDocument nonce={nonce} {...props} />);
  });
  bindRoute(routes, contracts.asset, (c) => {
    const file = c.req.param('file') ?? '';
    const text = modules().get(file);
    if (text === undefined) return send(c, { code: Code.NOT_FOUND, description: `No dashboard module is called ${JSON.stringify(file.slice(0, 64))}.` });
    return c.body(text, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
  });
  return routes;
}
