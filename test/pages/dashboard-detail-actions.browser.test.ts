/**
 * A payment opened to act on it: its actions are in view as the detail opens, on a phone and a
 * desktop alike, and what an action answered shows in view too, not a screen above the button.
 * On a phone, a field holding JSON (payee, payer, fee) takes the panel's width under its name.
 * A keyboard user keeps their place when a live update brings a new payment or delivery.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createBody, DEMO_KEY } from '../helpers.js';
import { DESKTOP, PHONE, openDashboard, servedDashboard } from './chromium.js';

const served = servedDashboard();

async function create(): Promise<string> {
  const res = await fetch(`${served.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(createBody({ metadata: { order: 'A-17' } })) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { payment_id: string }).payment_id;
}

/** Whether the whole of `target` is inside the viewport as the page is scrolled now. */
async function inView(page: Page, target: Locator): Promise<boolean> {
  const box = await target.boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y + box.height <= height;
}

describe('a payment opened to act on it', () => {
  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    it(`shows its actions, and what one answered, without scrolling on a ${name}`, async () => {
      const id = await create();
      const page = await served.chromium.newPage(viewport);
      await openDashboard(page, served.server.url, DEMO_KEY);
      await page.locator(`tr[data-payment-id="${id}"] button[data-action="open"]`).click();
      await page.locator('#detail [data-field="payment_id"]').waitFor();
      const pay = page.locator('#detail-actions button[data-action="pay"]');
      expect(await inView(page, pay)).toBe(true);
      await pay.click();
      await page.locator('#detail-message [data-code="200"]').waitFor();
      expect(await inView(page, page.locator('#detail-message'))).toBe(true);
      await page.close();
    });
  }
});

describe("a payment's fields on a phone", () => {
  it('give a JSON value the width of the panel, under its name, not a third of it beside', async () => {
    const id = await create();
    const page = await served.chromium.newPage(PHONE);
    await openDashboard(page, served.server.url, DEMO_KEY);
    await page.locator(`tr[data-payment-id="${id}"] button[data-action="open"]`).click();
    const payee = page.locator('#detail [data-field="payee"] pre');
    await payee.waitFor();
    const panel = await page.locator('#detail').boundingBox();
    const box = await payee.boundingBox();
    expect(box!.width).toBeGreaterThan(panel!.width * 0.9);
    // A plain value stays beside its name.
    const id_ = await page.locator('#detail [data-field="payment_id"]').boundingBox();
    expect(id_!.x).toBeGreaterThan(panel!.x + 50);
    await page.close();
  });
});

describe('a live update of the payments list', () => {
  it('keeps the keyboard focus on the payment it was on when a new payment arrives', async () => {
    await create();
    const focused = await create();
    const page = await served.chromium.newPage(DESKTOP);
    await openDashboard(page, served.server.url, DEMO_KEY);
    const open = page.locator(`tr[data-payment-id="${focused}"] button[data-action="open"]`);
    await open.focus();
    const arrived = await create();
    await page.locator(`tr[data-payment-id="${arrived}"]`).waitFor({ timeout: 10_000 });
    const place = await page.evaluate(() => {
      const active = (globalThis as unknown as { document: { activeElement: { closest(s: string): { dataset: { paymentId?: string } } | null; dataset: { action?: string } } | null } }).document.activeElement;
      return { row: active?.closest('tr')?.dataset.paymentId, action: active?.dataset.action };
    });
    expect(place).toEqual({ row: focused, action: 'open' });
    await page.close();
  });
});

describe('a live update of the deliveries', () => {
  it('keeps the focus on the Resend it was on, and its attempts open, when a new delivery arrives', async () => {
    const set = await fetch(`${served.server.url}/sandbox/v1/webhook`, { method: 'PUT', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }) });
    expect(set.status).toBe(200);
    await create();
    const page = await served.chromium.newPage(DESKTOP);
    await openDashboard(page, served.server.url, DEMO_KEY);
    const first = page.locator('#deliveries li.delivery').first();
    await first.waitFor();
    const id = await first.getAttribute('data-delivery');
    const mine = page.locator(`#deliveries li.delivery[data-delivery="${id}"]`);
    await mine.locator('summary').click();
    await mine.locator('button[data-action="resend"]').focus();
    const before = await page.locator('#deliveries li.delivery').count();
    await create();
    await expect.poll(() => page.locator('#deliveries li.delivery').count(), { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await mine.locator('details').evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
    const focused = await page.evaluate(() => {
      const active = (globalThis as unknown as { document: { activeElement: { closest(s: string): { dataset: { delivery?: string } } | null; dataset: { action?: string } } | null } }).document.activeElement;
      return { delivery: active?.closest('li')?.dataset.delivery, action: active?.dataset.action };
    });
    expect(focused).toEqual({ delivery: id, action: 'resend' });
    await page.close();
  });
});

describe("a payment's requests", () => {
  it('include its create when a fault cut the answer off (nothing in the journal names the payment but the merchant_ref_no sent)', async () => {
    const body = createBody({ merchant_ref_no: `cut-${Date.now()}` });
    // The change is committed, then the connection dropped: the client never learns the payment's id.
    await fetch(`${served.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Sandbox-Fault': 'drop' }, body: JSON.stringify(body) }).catch(() => undefined);
    const found = await fetch(`${served.server.url}/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    const [payment] = ((await found.json()) as { payments: { payment_id: string }[] }).payments;
    const page = await served.chromium.newPage(DESKTOP);
    await openDashboard(page, served.server.url, DEMO_KEY);
    await page.locator(`tr[data-payment-id="${payment!.payment_id}"] button[data-action="open"]`).click();
    const requests = page.locator('#detail-journal');
    await requests.locator('table').waitFor();
    expect(await requests.textContent()).toContain('dropped');
    await page.close();
  });
});
