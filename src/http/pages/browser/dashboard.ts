/**
 * The dashboard's entry module (dashboard-page.tsx loads it as a module script under the page's
 * nonce): the key form, the toolbar, and the panels, each in its own module; live updates by polling.
 */
import type { Clock, OwnMerchant } from './api.js';
import { initCreate, setMerchant } from './create.js';
import { initDetail, showPayment } from './detail.js';
import { byId, el } from './dom.js';
import { initFaults, loadFaults } from './faults.js';
import { initGoLive, loadClock, loadReadiness, showClock } from './golive.js';
import { initJournal, loadJournal } from './journal.js';
import { initPayments, loadPayments, onNewestPage } from './payments.js';
import { control, forgetKey, hasKey, isBusy, keepKey, notice, run, useKey, whenKeyRefused } from './session.js';
import { initWebhooks, loadDeliveryPanel, loadWebhooks } from './webhooks.js';

const LIVE_MS = 3000;
const ui = {
  root: byId('dashboard', HTMLElement),
  login: byId('login', HTMLElement),
  loginError: byId('login-error', HTMLElement),
  keyForm: byId('key-form', HTMLFormElement),
  keyInput: byId('key-input', HTMLInputElement),
  app: byId('app', HTMLElement),
  who: byId('who', HTMLElement),
  merchant: byId('merchant', HTMLElement),
  forget: byId('forget', HTMLButtonElement),
  message: byId('message', HTMLElement),
  refresh: byId('refresh', HTMLButtonElement),
  live: byId('live', HTMLInputElement),
  settleAll: byId('settle-all', HTMLButtonElement),
  reset: byId('reset', HTMLButtonElement),
};

let timer: number | null = null;

function showLogin(message: string): void {
  stopLive();
  ui.app.hidden = true;
  ui.who.hidden = true;
  ui.login.hidden = false;
  ui.loginError.replaceChildren(message ? el('div', { class: 'notice error', role: 'alert' }, message) : '');
  ui.keyInput.focus();
}

async function refresh(): Promise<void> {
  await Promise.all([loadPayments(), loadJournal(), loadReadiness(), loadClock(), loadWebhooks(), loadFaults()]);
}

/** New payments and deliveries appear without a reload: the newest page and the delivery log are read again. */
async function tick(): Promise<void> {
  if (isBusy() || !hasKey() || document.hidden) return;
  await Promise.all([onNewestPage() ? loadPayments() : Promise.resolve(), loadDeliveryPanel()]);
}

function startLive(): void {
  stopLive();
  if (ui.live.checked) timer = window.setInterval(() => void tick(), LIVE_MS);
}

function stopLive(): void {
  if (timer !== null) window.clearInterval(timer);
  timer = null;
}

/** Opens the dashboard with `candidate`, or with the key this tab kept (null). */
async function open(candidate: string | null): Promise<void> {
  if (candidate !== null) useKey(candidate);
  const clock = await control<Clock>('GET', '/clock');
  if (!clock.ok) {
    // A 401 is answered by whenKeyRefused, with the API's own words.
    if (clock.code !== 401) {
      forgetKey();
      showLogin('The sandbox answered ' + clock.code + ': ' + clock.body.description);
    }
    return;
  }
  keepKey();
  const merchant = await control<OwnMerchant>('GET', '/merchant');
  if (merchant.ok) {
    ui.merchant.textContent = merchant.body.name + ' · ' + merchant.body.payee_id;
    setMerchant(merchant.body.payee_id, merchant.body.home_currency, merchant.body.require_signature);
  }
  ui.login.hidden = true;
  ui.app.hidden = false;
  ui.who.hidden = false;
  showClock(clock.body);
  await refresh();
  startLive();
}

function act(method: 'POST' | 'DELETE', path: string): () => Promise<void> {
  return async () => {
    const r = await control<{ description: string }>(method, path, method === 'POST' ? {} : undefined);
    notice(ui.message, r.code, r.body.description);
    await refresh();
  };
}

whenKeyRefused((description) => showLogin('The sandbox did not accept this key (401): ' + description));
initPayments((id) => void showPayment(id));
initDetail(() => loadPayments());
initCreate(loadPayments, showPayment);
initWebhooks(new URL(ui.root.dataset.baseUrl ?? '', location.href).href.replace(/\/+$/, ''));
initJournal();
initFaults();
initGoLive(refresh);

ui.keyForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const candidate = ui.keyInput.value.trim();
  ui.keyInput.value = '';
  if (candidate) void open(candidate);
});
ui.forget.addEventListener('click', () => {
  forgetKey();
  showLogin('');
});
ui.refresh.addEventListener('click', () => void run(ui.app, refresh));
ui.live.addEventListener('change', startLive);
ui.settleAll.addEventListener('click', () => void run(ui.app, act('POST', '/settle')));
ui.reset.addEventListener('click', () => {
  if (!window.confirm('Erase every payment of this merchant and reset its sandbox clock? The key stays.')) return;
  void run(ui.app, act('POST', '/reset'));
});

if (hasKey()) void open(null);
else showLogin('');
