/**
 * The dashboard's operations in a real headless Chromium: webhooks (URL, secret shown once, drills,
 * test event, resend, listen line), the request log (filters, bodies at full width, a 401's
 * string_to_sign and hint), fault rules, the clock and the readiness JUnit file, live updates,
 * the keyboard alone, and safety (key only in the tab, a cross-site form refused, bodies as text).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, memorySandbox } from '../helpers.js';
import { SIGNED_KEY } from '../support/http.js';
import { capturedLog } from '../support/log.js';
import { receiver } from '../support/webhook-receiver.js';
import type { Chromium } from './chromium.js';
import { DESKTOP, launchChromium, openDashboard, PHONE, scrollsSideways, shot } from './chromium.js';

let sandbox: Sandbox;
let server: RunningServer;
let chromium: Chromium;
let desk: Page;
let hook: Awaited<ReturnType<typeof receiver>>;
/** Another origin (another port), whose page posts a form at the sandbox. */
let stranger: Server;
let strangerUrl: string;
const log = capturedLog();

beforeAll(async () => {
  sandbox = await memorySandbox({ scheduler: true, log: log.log });
  server = await sandbox.listen(0, '127.0.0.1');
  hook = await receiver();
  stranger = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<form id="f" method="POST" action="${server.url}/sandbox/v1/settle" enctype="text/plain"><input name='{"a":"' value='"}'></form><script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
  strangerUrl = `http://localhost:${(stranger.address() as AddressInfo).port}/`;
  chromium = await launchChromium();
  desk = await chromium.newPage(DESKTOP);
  await openDashboard(desk, server.url, DEMO_KEY);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close(100);
  await sandbox?.close();
  await hook?.close();
  await new Promise((resolve) => stranger?.close(resolve));
});

afterEach(() => {
  expect(chromium.problems.splice(0)).toEqual([]);
});

async function post(path: string, body: unknown, key = DEMO_KEY): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

const pwned = (page: Page) => page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned);
const width = (page: Page, selector: string) => page.locator(selector).first().evaluate((n) => (n as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width);

describe('webhooks', () => {
  it('sets the URL (secret shown once), sends a test event, resends it with the same event_id, rotates, sets drills and removes the URL', async () => {
    // The panel fills in once its own read answers, which a loaded machine may not have done yet.
    await desk.locator('#webhook-state', { hasText: 'No webhook URL: enter one below' }).waitFor();
    expect(await desk.locator('#listen-line pre').textContent()).toBe(`npx payreq-sandbox listen --base-url ${server.url} --key "$PAYREQ_SANDBOX_KEY" --forward-to http://localhost:3000/hooks`);
    await desk.locator('#webhook-url').fill('not a url');
    await desk.locator('#webhook-form button[type=submit]').click();
    await expect.poll(() => desk.locator('#webhook-url-error').textContent()).toContain('absolute http');

    await desk.locator('#webhook-url').fill(hook.url);
    await desk.locator('#webhook-form button[type=submit]').click();
    await desk.locator('#webhook-secret pre').waitFor();
    const secret = (await desk.locator('#webhook-secret pre').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(await desk.locator('#webhook-current').textContent()).toBe(hook.url);

    await desk.locator('#webhook-test-type').selectOption('payment.paid');
    await desk.locator('#webhook-test-form button[type=submit]').click();
    await desk.locator('#webhook-message [data-code="200"]').waitFor();
    const delivery = desk.locator('#deliveries li.delivery').first();
    await delivery.waitFor();
    const eventId = await delivery.getAttribute('data-event-id');
    expect(await delivery.textContent()).toContain('payment.paid');
    await delivery.locator('summary').click();
    expect(await delivery.locator('ol.attempts').textContent()).toMatch(/200 · \d+ ms/);
    expect(JSON.parse((await delivery.locator('pre.body').textContent()) ?? '')).toMatchObject({ type: 'payment.paid', event_id: eventId, test: true });

    await delivery.locator('button[data-action="resend"]').click();
    await expect.poll(() => hook.received.filter((r) => r.body.event_id === eventId).length, { timeout: 10_000 }).toBe(2);
    await shot(desk, 'dashboard-webhooks', '#webhooks-panel');

    await desk.locator('#webhook-rotate').click();
    await expect.poll(async () => (await desk.locator('#webhook-secret pre').textContent()) !== secret).toBe(true);

    await desk.locator('#drill-duplicate').fill('0.5');
    await desk.locator('#drill-reorder').check();
    await desk.locator('#drills-form button[type=submit]').click();
    await desk.locator('#webhook-message [data-code="200"]').waitFor();
    const settings = (await (await fetch(`${server.url}/sandbox/v1/webhook`, { headers: { 'Service-Api-Key': DEMO_KEY } })).json()) as { faults: { duplicate: number; reorder: boolean } };
    expect(settings.faults).toMatchObject({ duplicate: 0.5, reorder: true });
    await desk.locator('#drill-duplicate').fill('0');
    await desk.locator('#drill-reorder').uncheck();
    await desk.locator('#drills-form button[type=submit]').click();
    // Applied before the reload below, which would cut the request short and leave the drills on for the next tests.
    await expect.poll(async () => ((await (await fetch(`${server.url}/sandbox/v1/webhook`, { headers: { 'Service-Api-Key': DEMO_KEY } })).json()) as { faults: unknown }).faults).toMatchObject({ duplicate: 0, reorder: false });

    // The secret is shown once: a reload shows the URL, never the secret.
    await desk.reload();
    await desk.locator('#webhook-current').waitFor();
    expect(await desk.locator('#webhook-secret').textContent()).toBe('');
    expect(await desk.content()).not.toContain('whsec_');

    await desk.locator('#webhook-remove').click();
    await expect.poll(() => desk.locator('#webhook-state').textContent()).toContain('No webhook URL');
  });
});

describe('request log', () => {
  it('filters by status and path and opens a 401 at full width with string_to_sign and the hint; a journal body shows as text', async () => {
    const bad = createBody({ payee: 'DEMO-MERCHANT-SIGNED', sign_type: 'SHA512', sign: 'f'.repeat(128), metadata: { x: '<img src=x onerror="window.__pwned = 1">' } });
    expect((await post('/openapi/v1/payments/payment', bad, SIGNED_KEY)).status).toBe(401);
    await post('/openapi/v1/payments/payment', createBody({ metadata: { y: '<script>window.__pwned = 1</script>' } }));
    const signed = await chromium.newPage(DESKTOP);
    await openDashboard(signed, server.url, SIGNED_KEY);
    await signed.locator('#journal-status').fill('4O1');
    await signed.locator('#journal-filter button[type=submit]').click();
    await expect.poll(() => signed.locator('#journal-status-error').textContent()).toContain('three digits');
    await signed.locator('#journal-status').fill('401');
    await signed.locator('#journal-path').fill('/payments/payment');
    await signed.locator('#journal-filter button[type=submit]').click();
    await expect.poll(() => signed.locator('#journal tr[data-entry]').count()).toBe(1);
    expect(await signed.locator('#journal tr[data-entry]').getAttribute('data-status')).toBe('401');
    await signed.locator('#journal button[data-action="bodies"]').click();
    const toSign = signed.locator('[data-body="string-to-sign"] pre');
    expect(await toSign.textContent()).toContain('&<signing_salt>');
    expect(await signed.locator('[data-body="hint"] pre').textContent()).toBeTruthy();
    expect(await signed.locator('[data-body="request"] pre').textContent()).toContain('"x": "<img src=x onerror=\\"window.__pwned = 1\\">"');
    // Full width: the bodies take the table's width, not a column's.
    expect(await width(signed, '[data-body="request"] pre')).toBeGreaterThan(0.9 * (await width(signed, '#journal table')));
    expect(await signed.locator('#journal img').count()).toBe(0);
    await shot(signed, 'dashboard-journal', '#journal-panel');
    await signed.setViewportSize(PHONE);
    expect(await scrollsSideways(signed)).toBe(false);
    await shot(signed, 'dashboard-journal', '#journal tr.detail-row');
    await signed.close();

    await desk.locator('#journal-path').fill('/openapi/v1/payments/payment');
    await desk.locator('#journal-filter button[type=submit]').click();
    await desk.locator('#journal button[data-action="bodies"]').first().click();
    expect(await desk.locator('#journal [data-body="request"] pre').first().textContent()).toContain('<script>window.__pwned = 1</script>');
    expect(await desk.locator('#journal script').count()).toBe(0);
    expect(await pwned(desk)).toBeUndefined();
    // A second page, two viewports and three screenshots: about 1.5 s alone, over 20 s beside CI's container build.
  }, 60_000);
});

describe('faults', () => {
  it('says what to do with no rules, checks a rule before sending, adds it, shows the header, removes it', async () => {
    await desk.locator('#refresh').click();
    await expect.poll(() => desk.locator('#fault-rules').textContent()).toContain('No fault rules: add one below');
    await desk.locator('#fault-path').fill('no-slash');
    await desk.locator('#fault-probability').fill('2');
    await desk.locator('#fault-form button[type=submit]').click();
    await expect.poll(() => desk.locator('#fault-path-error').textContent()).toContain('public path');
    expect(await desk.locator('#fault-probability-error').textContent()).toContain('from 0 to 1');
    await desk.locator('#fault-path').fill('/openapi/v1/payments/payment/*/cancel');
    await desk.locator('#fault-probability').fill('0.5');
    await desk.locator('#fault-fault').fill('error=503');
    expect(await desk.locator('#fault-header pre').textContent()).toBe('Sandbox-Fault: error=503');
    await desk.locator('#fault-form button[type=submit]').click();
    await desk.locator('#faults-message [data-code="200"]').waitFor();
    const rule = desk.locator('#fault-rules li.rule');
    expect(await rule.textContent()).toContain('* /openapi/v1/payments/payment/*/cancel');
    expect(await rule.textContent()).toContain('Sandbox-Fault: error=503');
    await shot(desk, 'dashboard-faults', '#faults-panel');
    // A rule the API refuses (a control path never fires) answers its 400 in place.
    await desk.locator('#fault-path').fill('/sandbox/v1/payments');
    await desk.locator('#fault-form button[type=submit]').click();
    await desk.locator('#faults-message [data-code="400"]').waitFor();
    expect(await desk.locator('#faults-message').textContent()).toContain('can never match');
    await rule.locator('button[data-action="remove-rule"]').click();
    await expect.poll(() => desk.locator('#fault-rules').textContent()).toContain('No fault rules');
  });
});

describe('clock and go-live', () => {
  it('advances the clock, shows each check with advice and evidence, and downloads the JUnit file', async () => {
    await desk.locator('#advance-seconds').fill('0');
    await desk.locator('#advance').click();
    await expect.poll(() => desk.locator('#advance-seconds-error').textContent()).toContain('1 or more');
    await desk.locator('#advance-seconds').fill('60');
    await desk.locator('#advance').click();
    await expect.poll(() => desk.locator('#golive-message').textContent()).toContain('Clock moved forward 60 s');
    await desk.locator('#readiness li[data-check="create"][data-status="pass"]').waitFor();
    expect(await desk.locator('#readiness li[data-check="create"] ul.evidence li').count()).toBeGreaterThan(0);
    expect(await desk.locator('#readiness li[data-check="interrupted-create"] .advice').textContent()).toContain('Sandbox-Fault: timeout');
    const [download] = await Promise.all([desk.waitForEvent('download'), desk.locator('#readiness-junit').click()]);
    expect(download.suggestedFilename()).toBe('readiness-DEMO-MERCHANT-1.xml');
    const xml = readFileSync((await download.path())!, 'utf8');
    expect(xml).toContain('<testsuites name="payreq-sandbox readiness"');
    expect(xml).toContain('<testcase name="create" classname="readiness"');
    await shot(desk, 'dashboard-golive', '#golive-panel');
  });
});

describe('live', () => {
  it('shows a new payment and a new delivery without a reload', async () => {
    await post('/sandbox/v1/reset', {});
    await desk.locator('#refresh').click();
    await expect.poll(() => desk.locator('#payments-body').textContent()).toContain('No payments yet');
    expect((await fetch(`${server.url}/sandbox/v1/webhook`, { method: 'PUT', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: hook.url }) })).status).toBe(200);
    const created = (await (await post('/openapi/v1/payments/payment', createBody())).json()) as { payment_id: string };
    await desk.locator(`tr[data-payment-id="${created.payment_id}"]`).waitFor({ timeout: 10_000 });
    await desk.locator(`#deliveries li.delivery:has-text("payment.created")`).waitFor({ timeout: 10_000 });
    // The payment's own detail lists its deliveries.
    await desk.locator(`tr[data-payment-id="${created.payment_id}"] button[data-action="open"]`).click();
    await desk.locator('#detail-deliveries li.delivery').waitFor();
    expect(await desk.locator('#detail-deliveries').textContent()).toContain('payment.created');
  });

  it('fits a 375 px phone with every panel filled: nothing scrolls sideways', async () => {
    await post('/sandbox/v1/faults', { match: { method: 'POST', path: '/openapi/v1/payments/payment' }, fault: 'latency=1', probability: 0.5, times: 3 });
    const phone = await chromium.newPage(PHONE);
    await openDashboard(phone, server.url, DEMO_KEY);
    await phone.locator('#deliveries li.delivery').first().waitFor();
    await phone.locator('#deliveries li.delivery summary').first().click();
    await phone.locator('#fault-rules li.rule').waitFor();
    await phone.locator('#readiness li.check').first().waitFor();
    expect(await scrollsSideways(phone)).toBe(false);
    for (const [name, at] of [['webhooks', '#webhooks-panel'], ['deliveries', '#deliveries'], ['faults', '#faults-panel'], ['golive', '#golive-panel'], ['create', '#create-panel']] as const) {
      await shot(phone, `dashboard-${name}`, at);
    }
    await phone.close();
  });
});

describe('keyboard', () => {
  it('reaches every action with Tab alone, and opens a payment with Enter', async () => {
    const page = await chromium.newPage(DESKTOP);
    await openDashboard(page, server.url, DEMO_KEY);
    await page.locator('#payments-body button[data-action="open"]').first().waitFor();
    const reached = new Set<string>();
    await page.locator('body').focus();
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => {
        const a = (globalThis as unknown as { document: { activeElement: { id: string; dataset: { action?: string }; tagName: string } | null } }).document.activeElement;
        return a ? a.id || (a.dataset.action ? 'action:' + a.dataset.action : a.tagName) : '';
      }));
    }
    for (const id of ['refresh', 'live', 'settle-all', 'reset', 'search', 'status-filter', 'action:open', 'create-amount', 'create-currency', 'create-product', 'create-ref', 'create-payer', 'create-metadata', 'webhook-url', 'drill-duplicate', 'drill-delay', 'drill-reorder', 'webhook-test-type', 'journal-status', 'journal-path', 'journal-reads', 'fault-method', 'fault-path', 'fault-fault', 'fault-probability', 'fault-times', 'advance-seconds', 'advance', 'refresh-readiness', 'readiness-junit', 'forget']) {
      expect(reached, id).toContain(id);
    }
    await page.locator('#payments-body button[data-action="open"]').first().focus();
    await page.keyboard.press('Enter');
    await page.locator('#detail [data-field="payment_id"]').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe('detail-close');
    await page.close();
  });
});

describe('safety', () => {
  it('keeps the key in the tab only: no URL, no cookie, no log line; a wrong key shows the API message', async () => {
    const page = await chromium.newPage(DESKTOP);
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await openDashboard(page, server.url, DEMO_KEY);
    await page.locator('#refresh').click();
    expect(urls.length).toBeGreaterThan(5);
    expect(urls.filter((u) => u.includes(DEMO_KEY))).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    expect(await chromium.context.cookies()).toEqual([]);
    expect(log.text()).not.toContain(DEMO_KEY);

    await page.locator('#forget').click();
    await page.locator('#key-input').fill('sk_sandbox_wrong_key');
    await page.locator('#key-form button[type=submit]').click();
    await page.locator('#login-error [role=alert]').waitFor();
    const api = (await (await fetch(`${server.url}/sandbox/v1/clock`, { headers: { 'Service-Api-Key': 'sk_sandbox_wrong_key' } })).json()) as { description: string };
    expect(await page.locator('#login-error').textContent()).toContain(api.description);
    expect(await page.locator('#login-error').textContent()).not.toContain('sk_sandbox_wrong_key');
    await shot(page, 'dashboard-login');
    await page.close();
  });

  it("refuses a cross-site form POST from another origin's page: it carries no key, so nothing changes", async () => {
    const p = (await (await post('/openapi/v1/payments/payment', createBody())).json()) as { payment_id: string };
    await post(`/sandbox/v1/payments/${p.payment_id}/pay`, {});
    const page = await chromium.newPage(DESKTOP);
    const answered = page.waitForResponse((r) => r.url() === `${server.url}/sandbox/v1/settle`);
    await page.goto(strangerUrl);
    const res = await answered;
    expect(res.status()).toBe(401);
    const status = (await (await fetch(`${server.url}/sandbox/v1/payments/${p.payment_id}`, { headers: { 'Service-Api-Key': DEMO_KEY } })).json()) as { payment: { settled: boolean } };
    expect(status.payment.settled).toBe(false);
    await page.close();
  });
});
