/**
 * The webhook panel: set, rotate and remove the URL (a new secret is shown once), the drills,
 * a test event, the `payreq-sandbox listen` line, and the deliveries with resend.
 */
import type { WebhookRotated, WebhookSet, WebhookSetBody, WebhookSettings } from './api.js';
import { deliveryList, loadDeliveries } from './deliveries.js';
import { byId, copyable, el, fieldError, redrawKeepingPlace } from './dom.js';
import { control, notice, run } from './session.js';

const ui = {
  panel: byId('webhooks-panel', HTMLElement),
  state: byId('webhook-state', HTMLElement),
  form: byId('webhook-form', HTMLFormElement),
  url: byId('webhook-url', HTMLInputElement),
  rotate: byId('webhook-rotate', HTMLButtonElement),
  remove: byId('webhook-remove', HTMLButtonElement),
  secret: byId('webhook-secret', HTMLElement),
  drills: byId('drills-form', HTMLFormElement),
  duplicate: byId('drill-duplicate', HTMLInputElement),
  reorder: byId('drill-reorder', HTMLInputElement),
  delay: byId('drill-delay', HTMLInputElement),
  testForm: byId('webhook-test-form', HTMLFormElement),
  testType: byId('webhook-test-type', HTMLSelectElement),
  listen: byId('listen-line', HTMLElement),
  deliveries: byId('deliveries', HTMLElement),
  message: byId('webhook-message', HTMLElement),
};

let shownDeliveries = '';

function showSecret(secret: string | undefined): void {
  if (!secret) return;
  ui.secret.replaceChildren(
    el('div', { class: 'notice info', role: 'status' }, 'The webhook secret, shown only this once: keep it where your receiver can read it (it verifies Sandbox-Signature).'),
    copyable(secret, 'webhook secret'),
  );
}

function showSettings(s: WebhookSettings): void {
  const on = s.url !== null;
  ui.state.replaceChildren(
    on ? el('p', null, 'Deliveries go to ', el('span', { class: 'mono', id: 'webhook-current' }, s.url ?? '')) : el('p', { class: 'empty', id: 'webhook-current' }, 'No webhook URL: enter one below (or run the listen line to reach a laptop) and each state change is POSTed to it.'),
  );
  ui.rotate.hidden = !on;
  ui.remove.hidden = !on;
  ui.duplicate.value = String(s.faults.duplicate);
  ui.reorder.checked = s.faults.reorder;
  ui.delay.value = String(s.faults.delay_seconds);
}

let generation = 0;

export async function loadDeliveryPanel(): Promise<void> {
  // Loads overlap (live updates, a resend); only the newest may draw.
  const mine = ++generation;
  const list = await loadDeliveries();
  if (mine !== generation) return;
  const signature = JSON.stringify(list?.map((d) => [d.id, d.state, d.attempts.length]) ?? null);
  if (signature === shownDeliveries) return;
  shownDeliveries = signature;
  if (list === null) ui.deliveries.replaceChildren(el('p', { class: 'hint' }, 'The delivery log is not available.'));
  else if (!list.length) ui.deliveries.replaceChildren(el('p', { class: 'empty' }, 'No deliveries yet: set a URL, then change a payment or send a test event.'));
  else redrawKeepingPlace(ui.deliveries, 'data-delivery', () => ui.deliveries.replaceChildren(deliveryList(list, ui.message, loadDeliveryPanel)));
}

export async function loadWebhooks(): Promise<void> {
  const r = await control<WebhookSettings>('GET', '/webhook');
  if (r.ok) showSettings(r.body);
  else notice(ui.message, r.code, r.body.description);
  await loadDeliveryPanel();
}

async function put(body: WebhookSetBody): Promise<void> {
  const r = await control<WebhookSet>('PUT', '/webhook', body);
  notice(ui.message, r.code, r.body.description);
  if (r.ok) {
    ui.secret.replaceChildren();
    showSecret(r.body.secret);
  }
  await loadWebhooks();
}

function drillsBody(): WebhookSetBody['faults'] | null {
  const duplicate = Number(ui.duplicate.value);
  const delay = Number(ui.delay.value);
  const badDuplicate = ui.duplicate.value.trim() === '' || !(duplicate >= 0 && duplicate <= 1);
  const badDelay = ui.delay.value.trim() === '' || !Number.isInteger(delay) || delay < 0;
  fieldError(ui.duplicate, badDuplicate ? 'A probability from 0 to 1, such as 0.5.' : null);
  fieldError(ui.delay, badDelay ? 'A whole number of sandbox seconds, 0 or more.' : null);
  if (badDuplicate || badDelay) return null;
  return { duplicate, reorder: ui.reorder.checked, delay_seconds: delay };
}

export function initWebhooks(baseUrl: string): void {
  ui.listen.replaceChildren(copyable(`npx payreq-sandbox listen --base-url ${baseUrl} --key "$PAYREQ_SANDBOX_KEY" --forward-to http://localhost:3000/hooks`, 'listen command'));
  ui.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const url = ui.url.value.trim();
    const bad = !/^https?:\/\/\S+$/i.test(url);
    fieldError(ui.url, bad ? 'An absolute http:// or https:// URL, such as https://example.test/hooks.' : null);
    if (bad) return ui.url.focus();
    void run(ui.panel, () => put({ url }));
  });
  ui.remove.addEventListener('click', () => void run(ui.panel, () => put({ url: null })));
  ui.rotate.addEventListener('click', () =>
    void run(ui.panel, async () => {
      const r = await control<WebhookRotated>('POST', '/webhook/secret');
      notice(ui.message, r.code, r.body.description);
      if (r.ok) showSecret(r.body.secret);
    }),
  );
  ui.drills.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const faults = drillsBody();
    if (faults) void run(ui.panel, () => put({ faults }));
  });
  ui.testForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void run(ui.panel, async () => {
      const r = await control<{ description: string }>('POST', '/webhook/test', { type: ui.testType.value });
      notice(ui.message, r.code, r.body.description);
      await loadDeliveryPanel();
    });
  });
}
