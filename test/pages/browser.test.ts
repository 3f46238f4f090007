/**
 * The pages in a real headless Chromium (Debian's, installed by scripts/ensure-chromium.sh):
 * a payer pays or declines from checkout_url, and a merchant drives a payment from the dashboard.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY } from '../helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots land here for a person to look at; set PAGES_SCREENSHOTS= (empty) to skip them. */
const SHOTS = process.env.PAGES_SCREENSHOTS ?? tmpdir();

let sandbox: Sandbox;
let server: RunningServer;
let context: BrowserContext;
let profile: string;
const problems: string[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ store: 'memory', scheduler: false });
  server = await sandbox.listen(0, '127.0.0.1');
  profile = mkdtempSync(join(tmpdir(), 'payreq-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await context?.close();
  await server?.close(100);
  await sandbox?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

afterEach(() => {
  // A CSP violation or a script error shows up here: the pages must run clean.
  expect(problems.splice(0)).toEqual([]);
});

async function newPage(viewport: { width: number; height: number }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // Refused actions (402), a missing page (404) and a wrong key (401) are answered on purpose; the browser logs those loads.
    if (msg.type() === 'error' && !/status of 40[124]/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `payreq-${name}.png`), fullPage: true });
}

interface Created {
  payment_id: string;
  qr_data: { checkout_url: string; image_url: string };
}

async function createPayment(overrides: Record<string, unknown> = {}): Promise<Created & { ref: string }> {
  const body = createBody(overrides);
  const res = await fetch(`${server.url}/openapi/v1/payments/payment`, {
    method: 'POST',
    headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return { ...((await res.json()) as Created), ref: body.merchant_ref_no as string };
}

async function apiStatus(id: string): Promise<{ payment_status: string; payee: { name: string; city: string } }> {
  const res = await fetch(`${server.url}/openapi/v1/payments/payment/${id}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
  return (await res.json()) as { payment_status: string; payee: { name: string; city: string } };
}

/** Runs in the page (tsconfig has no DOM lib, so the browser types are spelled out here). */
const loadedWidth = (img: unknown): number => {
  const { complete, naturalWidth } = img as { complete: boolean; naturalWidth: number };
  return complete ? naturalWidth : 0;
};
const storedKey = (page: Page): Promise<string | null> =>
  page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('payreq-sandbox.api-key'));

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describe('payer page in Chromium', () => {
  it('shows the merchant, the amount and a loading QR; Pay makes it A, as the status API agrees', async () => {
    const p = await createPayment({ amount: 1234.5 });
    const { payee } = await apiStatus(p.payment_id);
    const page = await newPage(PHONE);
    const response = await page.goto(p.qr_data.checkout_url);
    expect(response?.status()).toBe(200);
    expect(await page.getByTestId('merchant-name').textContent()).toBe(payee.name);
    expect(await page.getByTestId('merchant-city').textContent()).toContain(payee.city);
    expect((await page.getByTestId('amount').textContent())?.replace(/\s+/g, ' ').trim()).toBe('1234.50 SGD');
    expect(await page.getByTestId('merchant-ref-no').textContent()).toBe(p.ref);
    const qr = page.getByTestId('qr');
    await expect.poll(() => qr.evaluate(loadedWidth)).toBeGreaterThan(0);
    await shot(page, 'payer-page');

    await page.getByTestId('pay').click();
    await page.waitForSelector('[data-status="A"]');
    expect(new URL(page.url()).pathname).toBe(new URL(p.qr_data.checkout_url).pathname);
    expect(await page.getByTestId('pay').count()).toBe(0);
    expect((await apiStatus(p.payment_id)).payment_status).toBe('A');
    await shot(page, 'payer-paid');
    await page.close();
  });

  it('Decline makes it F', async () => {
    const p = await createPayment();
    const page = await newPage(PHONE);
    await page.goto(p.qr_data.checkout_url);
    await page.getByTestId('decline').click();
    await page.waitForSelector('[data-status="F"]');
    expect((await apiStatus(p.payment_id)).payment_status).toBe('F');
    await page.close();
  });

  it('shows the 402 description when the payment changed meanwhile', async () => {
    const p = await createPayment();
    const page = await newPage(PHONE);
    await page.goto(p.qr_data.checkout_url);
    await sandbox.control.pay(DEMO_KEY, p.payment_id);
    await page.getByTestId('decline').click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('already paid');
    expect(await page.locator('[data-status]').first().getAttribute('data-status')).toBe('A');
    expect((await apiStatus(p.payment_id)).payment_status).toBe('A');
    await shot(page, 'payer-refused');
    await page.close();
  });

  it('answers an unknown token with a 404 page', async () => {
    const page = await newPage(PHONE);
    const response = await page.goto(`${server.url}/sandbox/pay/ptok_${'Z'.repeat(32)}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Payment not found');
    await shot(page, 'payer-not-found');
    await page.close();
  });
});

describe('dashboard in Chromium', () => {
  it('takes the key once, lists the payment, drives it with a control action and shows the journal', async () => {
    const paid = await createPayment({ amount: 42 });
    await sandbox.control.pay(DEMO_KEY, paid.payment_id);
    const p = await createPayment({ amount: 10.5 });
    const page = await newPage(DESKTOP);
    await page.goto(`${server.url}/sandbox`);
    await page.locator('#key-input').fill(DEMO_KEY);
    await page.locator('#key-form button[type=submit]').click();

    const row = page.locator(`tr[data-payment-id="${p.payment_id}"]`);
    await row.waitFor();
    // Newest first.
    expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(p.payment_id);
    expect(await row.textContent()).toContain(p.ref);
    expect(await row.textContent()).toContain('10.50 SGD');
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('P');
    await expect.poll(() => row.locator('td.qr img').evaluate(loadedWidth)).toBeGreaterThan(0);
    expect(page.url()).not.toContain(DEMO_KEY);
    expect(await storedKey(page)).toBe(DEMO_KEY);

    await row.locator('button[data-action="pickup"]').click();
    await row.locator('[data-status="W"]').waitFor();
    await page.locator(`tr[data-payment-id="${p.payment_id}"] button[data-action="pay"]`).click();
    const fresh = page.locator(`tr[data-payment-id="${p.payment_id}"]`);
    await fresh.locator('[data-status="A"]').waitFor();
    expect(await page.locator('#message').textContent()).toContain('is now A');
    expect((await apiStatus(p.payment_id)).payment_status).toBe('A');

    // A refused action shows the 402 and its description.
    await fresh.locator('button[data-action="cancel"]').click();
    await page.locator('#message [data-code="402"]').waitFor();
    expect(await page.locator('#message').textContent()).toContain('use void');

    await fresh.locator('button[data-action="events"]').click();
    await page.locator('.events-row li').nth(2).waitFor();

    await page.locator('#journal table').waitFor();
    expect(await page.locator('#journal').textContent()).toContain('/openapi/v1/payments/payment');

    // The readiness panel: the creates count as tried, the /v1 alias is never used, nothing lost yet.
    await page.locator('#refresh-readiness').click();
    await page.locator('#readiness li[data-check="create"][data-status="pass"]').waitFor();
    expect(await page.locator('#readiness-verdict').textContent()).toBe('not ready');
    expect(await page.locator('#readiness li[data-check="production-path"]').getAttribute('data-status')).toBe('pass');
    expect(await page.locator('#readiness li[data-check="interrupted-create"]').textContent()).toContain('NOT TRIED');
    expect(await page.locator('#readiness li[data-check="interrupted-create"]').textContent()).toContain('Sandbox-Fault: timeout');
    await shot(page, 'dashboard');

    // The key survives a reload of the tab, and "Forget key" drops it.
    await page.reload();
    await page.locator(`tr[data-payment-id="${p.payment_id}"]`).waitFor();
    await page.locator('#forget').click();
    await page.locator('#login').waitFor();
    expect(await storedKey(page)).toBeNull();
    await page.close();
  });

  it('refuses an unknown key and stays on the login form', async () => {
    const page = await newPage(DESKTOP);
    await page.goto(`${server.url}/sandbox`);
    await page.locator('#key-input').fill('sk_sandbox_not_a_key');
    await page.locator('#key-form button[type=submit]').click();
    await page.locator('#login-error [role=alert]').waitFor();
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.locator('#login-error').textContent()).not.toContain('sk_sandbox_not_a_key');
    await shot(page, 'dashboard-login');
    await page.close();
  });
});
