/**
 * The dashboard's payments in a real headless Chromium: search, filter and page through every
 * payment; a payment's detail with only the actions its state allows; create one from the form
 * (checked before sending, signed when required); merchant text shown as text, never as HTML.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBody, DEMO_KEY } from '../helpers.js';
import { SIGNED_KEY } from '../support/http.js';
import { DESKTOP, PHONE, openDashboard, scrollsSideways, servedDashboard, shot } from './chromium.js';

const served = servedDashboard();
let desk: Page;

const XSS = { note: '<script>window.__pwned = 1</script>', img: '<img src=x onerror="window.__pwned = 1">' };

beforeAll(async () => {
  desk = await served.chromium.newPage(DESKTOP);
});

async function create(overrides: Record<string, unknown> = {}, key = DEMO_KEY): Promise<{ payment_id: string; ref: string }> {
  const body = createBody(overrides);
  const res = await fetch(`${served.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return { payment_id: ((await res.json()) as { payment_id: string }).payment_id, ref: body.merchant_ref_no as string };
}

async function statusOf(id: string): Promise<string> {
  const res = await fetch(`${served.server.url}/openapi/v1/payments/payment/${id}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
  return ((await res.json()) as { payment_status: string }).payment_status;
}

/** Longer than the dashboard's live reload (every 3 s). */
const LIVE_RELOADS_MS = 3_500;
const rows = (page: Page) => page.locator('#payments-body tr[data-payment-id]');
const rowIds = (page: Page) => rows(page).evaluateAll((trs) => trs.map((tr) => (tr as unknown as { dataset: { paymentId: string } }).dataset.paymentId));
const pwned = (page: Page) => page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned);

describe('payments: empty, search, filter, pages', () => {
  it('says what to do when there are no payments yet', async () => {
    await openDashboard(desk, served.server.url, DEMO_KEY);
    await expect.poll(() => desk.locator('#payments-body').textContent()).toContain('No payments yet: create one with the form below');
  });

  it('pages through all 45 payments newest first, searches by payment_id, reference or payer, and filters by status', async () => {
    const made: string[] = [];
    for (let i = 0; i < 44; i++) made.push((await create({ merchant_ref_no: `order-${String(i).padStart(2, '0')}-x` })).payment_id);
    const alice = await create({ merchant_ref_no: 'basket-alice', payer: 'Alice Searchable' });
    made.push(alice.payment_id);
    await served.sandbox.control.pay(DEMO_KEY, made[3]!);
    const newest = [...made].reverse();

    await desk.locator('#refresh').click();
    await expect.poll(() => rowIds(desk)).toEqual(newest.slice(0, 20));
    expect(await desk.locator('#payments-count').textContent()).toBe('1–20 of 45');
    await desk.locator('#payments-older').click();
    await expect.poll(() => rowIds(desk)).toEqual(newest.slice(20, 40));
    await desk.locator('#payments-older').click();
    await expect.poll(() => rowIds(desk)).toEqual(newest.slice(40));
    expect(await desk.locator('#payments-older').isDisabled()).toBe(true);
    expect(await desk.locator('#payments-count').textContent()).toBe('41–45 of 45');
    await desk.locator('#payments-newer').click();
    await expect.poll(() => rowIds(desk)).toEqual(newest.slice(20, 40));
    await shot(desk, 'dashboard-payments', '#payments-panel');

    const search = async (text: string) => {
      await desk.locator('#search').fill(text);
      await desk.locator('#search').press('Enter');
    };
    await search(made[7]!);
    await expect.poll(() => rowIds(desk)).toEqual([made[7]]);
    await search('ORDER-1');
    // order-10-x to order-19-x, newest first; letter case ignored.
    await expect.poll(() => rowIds(desk)).toEqual(made.slice(10, 20).reverse());
    await search('searchable');
    await expect.poll(() => rowIds(desk)).toEqual([alice.payment_id]);
    await search('no-such-thing');
    await expect.poll(() => desk.locator('#payments-body').textContent()).toContain('No payment matches this search');
    await search('');
    await desk.locator('#status-filter').selectOption('A');
    await expect.poll(() => rowIds(desk)).toEqual([made[3]]);
    await desk.locator('#status-filter').selectOption('');
    await expect.poll(() => rowIds(desk)).toEqual(newest.slice(0, 20));
  });

  it('fits a 375 px phone without sideways scrolling', async () => {
    const phone = await served.chromium.newPage(PHONE);
    await openDashboard(phone, served.server.url, DEMO_KEY);
    await expect.poll(() => rows(phone).count()).toBe(20);
    expect(await scrollsSideways(phone)).toBe(false);
    await shot(phone, 'dashboard-payments', '#payments-panel');
    await phone.close();
  });
});

describe('payment detail', () => {
  it('shows every field, metadata as text, the QR, the timeline, its requests and only the actions its state allows', async () => {
    const p = await create({ amount: 12.34, metadata: { ...XSS, nested: { level: 2 } } });
    await desk.locator('#search').fill(p.payment_id);
    await desk.locator('#search').press('Enter');
    await desk.locator(`tr[data-payment-id="${p.payment_id}"] button[data-action="open"]`).click();
    const detail = desk.locator('#detail-panel');
    await detail.locator('[data-field="payment_id"]').waitFor();
    expect(await detail.locator('[data-field="payment_id"]').textContent()).toBe(p.payment_id);
    expect(await detail.locator('[data-field="original_amount"]').textContent()).toBe('12.34');
    for (const field of ['payee', 'payer', 'payment_code', 'expires_at', 'settled', 'payment_token']) expect(await detail.locator(`[data-field="${field}"]`).count()).toBe(1);
    const metadata = await desk.locator('#detail-metadata').textContent();
    expect(JSON.parse(metadata ?? '')).toEqual({ ...XSS, nested: { level: 2 } });
    expect(metadata).toContain('\n  "nested": {\n    "level": 2\n  }');
    expect(await desk.locator('#detail img:not(#detail-qr)').count()).toBe(0);
    expect(await desk.locator('#detail script').count()).toBe(0);
    await expect.poll(() => desk.locator('#detail-qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    expect(await desk.locator('#detail-journal').textContent()).toContain('/openapi/v1/payments/payment');
    expect(await desk.locator('#detail-actions button').evaluateAll((bs) => bs.map((b) => (b as unknown as { dataset: { action: string } }).dataset.action))).toEqual(['pickup', 'pay', 'fail', 'expire', 'cancel']);
    expect(await desk.locator('[data-absent="void"]').textContent()).toContain('not paid yet, so use cancel');
    expect(await desk.locator('[data-absent="settle"]').textContent()).toContain('only a paid payment');

    await desk.locator('#detail-actions button[data-action="pay"]').click();
    await desk.locator('#detail-message [data-code="200"]').waitFor();
    expect(await desk.locator('#detail-message').textContent()).toContain('is now A');
    await expect.poll(() => desk.locator('#detail-actions button').count()).toBe(2);
    expect(await desk.locator('.timeline li').evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { event: string } }).dataset.event))).toEqual(['created', 'paid']);
    expect(await desk.locator('[data-absent="cancel"]').textContent()).toContain('use void');
    expect(await pwned(desk)).toBeUndefined();
    await shot(desk, 'dashboard-detail', '#detail-panel');

    // Voided behind the page's back: its Void answers the 402 in place and changes nothing.
    await fetch(`${served.server.url}/openapi/v1/payments/payment/${p.payment_id}/void`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' }, body: '{"reason":"elsewhere"}' });
    await desk.locator('#detail-actions button[data-action="settle"]').click();
    await desk.locator('#detail-message [data-code="402"]').waitFor();
    expect(await desk.locator('#detail-message').textContent()).toContain('only a paid payment (status A) can be settled');
    expect(await statusOf(p.payment_id)).toBe('V');
    await expect.poll(() => desk.locator('#detail-actions').textContent()).toContain('No action applies');
  });

  it('fits a phone too', async () => {
    const phone = await served.chromium.newPage(PHONE);
    await openDashboard(phone, served.server.url, DEMO_KEY);
    await phone.locator('#payments-body button[data-action="open"]').first().click();
    await phone.locator('#detail [data-field="payment_id"]').waitFor();
    expect(await scrollsSideways(phone)).toBe(false);
    await shot(phone, 'dashboard-detail', '#detail-panel');
    await phone.close();
  });
});

describe('create a payment from the form', () => {
  it('names a wrong value beside its field and sends nothing', async () => {
    await desk.locator('#search').fill('');
    const sent: string[] = [];
    const watch = (r: { method(): string; url(): string }) => void (r.method() === 'POST' && sent.push(r.url()));
    desk.on('request', watch);
    await desk.locator('#create-amount').fill('10.555');
    await desk.locator('#create-metadata').fill('{"open": ');
    await desk.locator('#create-form button[type=submit]').click();
    await expect.poll(() => desk.locator('#create-amount-error').textContent()).toContain('at most 2 decimals');
    expect(await desk.locator('#create-metadata-error').textContent()).toContain('Not JSON');
    expect(await desk.locator('#create-amount').getAttribute('aria-invalid')).toBe('true');
    await desk.locator('#create-amount').fill('5');
    await desk.locator('#create-metadata').fill('[1, 2]');
    await desk.locator('#create-form button[type=submit]').click();
    await expect.poll(() => desk.locator('#create-metadata-error').textContent()).toContain('must be a JSON object');
    expect(await desk.locator('#create-amount-error').textContent()).toBe('');
    desk.off('request', watch);
    expect(sent).toEqual([]);
  });

  it('creates with a magic payer, shows the curl line and the answer, and opens the payment', async () => {
    await desk.locator('#create-amount').fill('25.5');
    await desk.locator('#create-currency').selectOption('USD');
    await desk.locator('#create-payer').fill('PAYER_PAYS');
    await desk.locator('#create-metadata').fill('{"cart": "A-17"}');
    await desk.locator('#create-form button[type=submit]').click();
    await desk.locator('#create-message [data-code="200"]').waitFor();
    const answer = JSON.parse((await desk.locator('#create-answer-body').textContent()) ?? '') as { payment_id: string };
    const curl = (await desk.locator('#create-curl pre').textContent()) ?? '';
    expect(curl).toContain(`curl -X POST '${served.server.url}/openapi/v1/payments/payment'`);
    expect(curl).toContain('"amount":25.5,"currency_code":"USD","payer":"PAYER_PAYS","metadata":{"cart":"A-17"}');
    expect(curl).toContain('$PAYREQ_SANDBOX_KEY');
    expect(curl).not.toContain(DEMO_KEY);
    expect(await statusOf(answer.payment_id)).toBe('A');
    await expect.poll(() => rows(desk).first().getAttribute('data-payment-id')).toBe(answer.payment_id);
    await shot(desk, 'dashboard-create', '#create-panel');
    await desk.locator('#create-open').click();
    await expect.poll(() => desk.locator('#detail [data-field="payment_id"]').textContent()).toBe(answer.payment_id);
  });

  it('signs the create when the merchant requires signatures', async () => {
    const signed = await served.chromium.newPage(DESKTOP);
    await openDashboard(signed, served.server.url, SIGNED_KEY);
    await expect.poll(() => signed.locator('#create-signed').textContent()).toContain('requires signatures');
    await signed.locator('#create-metadata').fill('{"b": 1, "a": "x y"}');
    await signed.locator('#create-form button[type=submit]').click();
    await signed.locator('#create-message [data-code="200"]').waitFor();
    expect(await signed.locator('#create-curl pre').textContent()).toMatch(/"sign_type":"SHA512","sign":"[0-9a-f]{128}"/);
    await signed.close();
  });
});

describe('a page whose cursor went stale', () => {
  it('goes back to the newest page and says why, when a reset erased the payment its cursor names', async () => {
    await desk.locator('#search').fill('');
    await desk.locator('#search').press('Enter');
    await expect.poll(() => desk.locator('#payments-older').isDisabled()).toBe(false);
    await desk.locator('#payments-older').click();
    await expect.poll(() => desk.locator('#payments-page').textContent()).toBe('Page 2');
    await fetch(`${served.server.url}/sandbox/v1/reset`, { method: 'POST', headers: { 'Service-Api-Key': DEMO_KEY } });
    await desk.locator('#refresh').click();
    await expect.poll(() => desk.locator('#payments-message').textContent()).toContain('no longer has');
    expect(await desk.locator('#payments-page').textContent()).toBe('Page 1');
    expect(await desk.locator('#payments-body').textContent()).toContain('No payments yet');
    // The live reloads of the newest page leave the why in place until the user moves.
    await desk.waitForTimeout(LIVE_RELOADS_MS);
    expect(await desk.locator('#payments-message').textContent()).toContain('no longer has');
    await desk.locator('#search').press('Enter');
    await expect.poll(() => desk.locator('#payments-message').textContent()).toBe('');
  });
});
