/**
 * The pages in a real headless Chromium (Debian's, installed by scripts/ensure-chromium.sh):
 * a payer pays or declines from checkout_url (the dashboard has its own files: dashboard-*.browser.test.ts).
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
const PHONE = { width: 390, height: 844 };

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
