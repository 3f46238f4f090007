/**
 * The dashboard's toolbar and filters in a real headless Chromium: settle all, advance the clock,
 * the status filter, the journal's own-reads checkbox and Clear, live updates, and Reset behind its confirm.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY } from '../helpers.js';
import type { Chromium } from './chromium.js';
import { DESKTOP, launchChromium } from './chromium.js';

let sandbox: Sandbox;
let server: RunningServer;
let chromium: Chromium;

beforeAll(async () => {
  sandbox = await createSandbox({ store: 'memory', scheduler: false });
  server = await sandbox.listen(0, '127.0.0.1');
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await server?.close(100);
  await sandbox?.close();
});

async function createPayment(): Promise<string> {
  const res = await fetch(`${server.url}/openapi/v1/payments/payment`, {
    method: 'POST',
    headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(createBody()),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { payment_id: string }).payment_id;
}

/** The dashboard on a fake clock, opened with the demo key; script errors and CSP violations land in chromium.problems. */
async function openDashboard(): Promise<Page> {
  const page = await chromium.newPage(DESKTOP);
  await page.clock.install();
  await page.goto(`${server.url}/sandbox`);
  await page.locator('#key-input').fill(DEMO_KEY);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#app').waitFor();
  return page;
}

const row = (page: Page, id: string) => page.locator(`tr[data-payment-id="${id}"]`);

describe('dashboard toolbar in Chromium', () => {
  it('settles, advances the clock, filters, shows its own reads on demand and clears the journal', async () => {
    const pending = await createPayment();
    const paid = await createPayment();
    await sandbox.control.pay(DEMO_KEY, paid);
    const page = await openDashboard();
    await row(page, paid).waitFor();

    await page.locator('#settle-all').click();
    await page.locator('#message [data-code="200"]').waitFor();
    expect(await page.locator('#message').textContent()).toContain('Settled 1 paid payment.');
    await expect.poll(() => row(page, paid).locator('.badge').textContent()).toContain('settled');

    await page.locator('#status-filter').selectOption('A');
    await expect.poll(() => page.locator('#payments-body tr[data-payment-id]').count()).toBe(1);
    expect(await page.locator('#payments-body tr').first().getAttribute('data-payment-id')).toBe(paid);
    await page.locator('#status-filter').selectOption('');
    await row(page, pending).waitFor();

    await page.locator('#advance-seconds').fill('7200');
    await page.locator('#advance').click();
    await expect.poll(() => page.locator('#golive-message').textContent()).toContain('Clock moved forward 7200 s');
    await expect.poll(() => page.locator('#clock').textContent()).toContain('(+7200 s)');
    await row(page, pending).locator('[data-status="E"]').waitFor();

    // The dashboard's own GETs of /sandbox/v1 are hidden until asked for.
    const clockReads = page.locator('#journal td.mono', { hasText: /^\/sandbox\/v1\/clock$/ });
    await page.locator('#journal td.mono', { hasText: /^\/sandbox\/v1\/clock\/advance$/ }).first().waitFor();
    expect(await clockReads.count()).toBe(0);
    await page.locator('#journal-reads').check();
    await expect.poll(() => clockReads.count()).toBeGreaterThan(0);
    await page.locator('#journal-reads').uncheck();
    await expect.poll(() => clockReads.count()).toBe(0);

    await page.locator('#clear-journal').click();
    await expect.poll(() => page.locator('#journal-message').textContent()).toMatch(/Erased \d+ journaled requests?\./);
    await expect.poll(() => page.locator('#journal').textContent()).not.toContain('/openapi/v1/payments/payment');
    expect(chromium.problems.splice(0)).toEqual([]);
    await page.close();
  });

  it('shows new payments within 3 s with live updates on (the default), and resets the merchant only once confirmed', async () => {
    const page = await openDashboard();
    expect(await page.locator('#live').isChecked()).toBe(true);
    const later = await createPayment();
    await page.clock.runFor(3_000);
    await row(page, later).waitFor();

    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.locator('#reset').click();
    // The next action's answer shows only once nothing else runs: by then a reset would have erased the payment.
    await page.locator('#settle-all').click();
    await expect.poll(() => page.locator('#message').textContent()).toContain('Settled 0 paid payments.');
    expect(await row(page, later).count()).toBe(1);
    expect((await fetch(`${server.url}/openapi/v1/payments/payment/${later}`, { headers: { 'Service-Api-Key': DEMO_KEY } })).status).toBe(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#reset').click();
    await expect.poll(() => page.locator('#message').textContent()).toContain('Erased');
    await expect.poll(() => page.locator('#payments-body').textContent()).toContain('No payments yet');
    expect(chromium.problems.splice(0)).toEqual([]);
    await page.close();
  });
});
