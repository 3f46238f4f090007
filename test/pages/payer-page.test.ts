/** The payer page through app.request(): what it shows, that it escapes, and that each action changes state once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../helpers.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(async () => {
  await sandbox.close();
});

interface Created {
  payment_id: string;
  payment_token: string;
  qr_data: { checkout_url: string; image_url: string };
}

async function createPayment(overrides: Record<string, unknown> = {}, key = DEMO_KEY, payee?: string): Promise<Created & { ref: string }> {
  const body = createBody({ ...(payee ? { payee } : {}), ...overrides });
  const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Service-Api-Key': key }));
  expect(res.status).toBe(200);
  return { ...((await res.json()) as Created), ref: body.merchant_ref_no as string };
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const pathOf = (url: string): string => new URL(url).pathname;
const page = (path: string, init?: RequestInit) => sandbox.fetch(new Request(`http://sandbox.test${path}`, init));
const post = (path: string) => page(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });

async function statusOf(id: string, key = DEMO_KEY): Promise<{ payment_status: string }> {
  return (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`, undefined, { 'Service-Api-Key': key }))).json() as Promise<{ payment_status: string }>;
}

async function eventsOf(id: string): Promise<{ type: string; actor: string }[]> {
  const res = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments/${id}/events`));
  return ((await res.json()) as { events: { type: string; actor: string }[] }).events;
}

describe('GET /sandbox/pay/{payment_token}', () => {
  it('shows merchant, city, amount with two decimals, reference, status, the QR image and both buttons', async () => {
    const p = await createPayment({ amount: 10.5 });
    const res = await page(pathOf(p.qr_data.checkout_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    const { payee } = (await statusOf(p.payment_id)) as unknown as { payee: { name: string; city: string } };
    expect(html).toContain(`data-testid="merchant-name">${escapeHtml(payee.name)}<`);
    expect(html).toContain(escapeHtml(payee.city));
    expect(html).toContain('<span class="value">10.50</span>');
    expect(html).toContain('SGD');
    expect(html).toContain(p.ref);
    expect(html).toContain('data-status="P"');
    expect(html).toContain(`src="${p.qr_data.image_url}"`);
    expect(html).toContain(`action="${pathOf(p.qr_data.checkout_url)}/pay"`);
    expect(html).toContain(`action="${pathOf(p.qr_data.checkout_url)}/decline"`);
    expect(html).not.toContain(DEMO_KEY);
  });

  it('is private and script-safe: CSP with a nonce, no caching, no Referer carrying the token', async () => {
    const p = await createPayment();
    const res = await page(pathOf(p.qr_data.checkout_url));
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('escapes the merchant name and city', async () => {
    const evil = await sandbox.control.enroll({ name: '<script>alert("n")</script>', city: '<img src=x onerror=alert(1)>' });
    const p = await createPayment({}, evil.apiKey, evil.payeeId);
    const html = await (await page(pathOf(p.qr_data.checkout_url))).text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;n&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('answers an HTML 404 page, never a stack, for unknown and malformed tokens', async () => {
    const unknown = `ptok_${'A'.repeat(32)}`;
    for (const token of [unknown, 'nope', 'ptok_%3Cscript%3E', '%E2%98%83', 'x'.repeat(2000), `${unknown}%00`]) {
      const res = await page(`/sandbox/pay/${token}`);
      expect(res.status, token).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('Payment not found');
      expect(html).not.toMatch(/at .*\.ts:\d+/);
      expect(html).not.toContain('<script>');
    }
    // A path over 2,048 characters is refused before any page: 414 in the JSON envelope, as on every route.
    const long = await page(`/sandbox/pay/${'x'.repeat(5000)}`);
    expect(long.status).toBe(414);
    expect(((await long.json()) as { code: number }).code).toBe(414);
    expect((await post(`/sandbox/pay/${unknown}/pay`)).status).toBe(404);
    expect((await post('/sandbox/pay/nope/decline')).status).toBe(404);
  });

  it('shows a final status without buttons', async () => {
    const p = await createPayment();
    await sandbox.control.expire(DEMO_KEY, p.payment_id);
    const html = await (await page(pathOf(p.qr_data.checkout_url))).text();
    expect(html).toContain('data-status="E"');
    expect(html).toContain('expired');
    expect(html).not.toContain('data-testid="pay"');
    expect(html).not.toContain('data-testid="decline"');
  });
});

describe('POST /sandbox/pay/{payment_token}/pay and /decline', () => {
  it('pays once as the payer and redirects 303 to the page, which shows A', async () => {
    const p = await createPayment();
    const path = pathOf(p.qr_data.checkout_url);
    const res = await post(`${path}/pay`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(path);
    expect((await statusOf(p.payment_id)).payment_status).toBe('A');
    const paid = (await eventsOf(p.payment_id)).filter((e) => e.type === 'paid');
    expect(paid).toEqual([expect.objectContaining({ type: 'paid', actor: 'payer' })]);
    const html = await (await page(path)).text();
    expect(html).toContain('data-status="A"');
    expect(html).toContain('Payment complete');
    expect(html).not.toContain('data-testid="pay"');
  });

  it('refuses a second payment with the 402 description on the page, and changes nothing', async () => {
    const p = await createPayment();
    const path = pathOf(p.qr_data.checkout_url);
    expect((await post(`${path}/pay`)).status).toBe(303);
    for (const action of ['pay', 'decline']) {
      const again = await post(`${path}/${action}`);
      expect(again.status).toBe(402);
      const html = await again.text();
      expect(html).toContain('data-code="402"');
      expect(html).toContain('already paid');
      expect(html).toContain('data-status="A"');
    }
    expect((await eventsOf(p.payment_id)).map((e) => e.type)).toEqual(['created', 'paid']);
  });

  it('declines as the payer: F, with the payer as actor', async () => {
    const p = await createPayment();
    const path = pathOf(p.qr_data.checkout_url);
    const res = await post(`${path}/decline`);
    expect(res.status).toBe(303);
    expect((await statusOf(p.payment_id)).payment_status).toBe('F');
    const events = await eventsOf(p.payment_id);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['created', 'merchant'],
      ['failed', 'payer'],
    ]);
    const html = await (await page(path)).text();
    expect(html).toContain('data-status="F"');
    expect((await post(`${path}/pay`)).status).toBe(402);
  });

  it('lets exactly one of many racing Pay clicks win', async () => {
    const p = await createPayment();
    const path = pathOf(p.qr_data.checkout_url);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(`${path}/${i % 2 ? 'decline' : 'pay'}`)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(5);
    expect((await eventsOf(p.payment_id)).filter((e) => e.type !== 'created')).toHaveLength(1);
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const p = await createPayment();
    const path = pathOf(p.qr_data.checkout_url);
    const get = await page(`${path}/pay`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const put = await page(path, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    expect((await statusOf(p.payment_id)).payment_status).toBe('P');
  });
});

describe('PUBLIC_BASE_URL with a path prefix', () => {
  it('puts the prefix into form actions, redirects and the image URL', async () => {
    const behindProxy = await memorySandbox({ config: { publicBaseUrl: 'https://pay.example.test/sbx' } });
    try {
      const res = await behindProxy.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
      const p = (await res.json()) as Created;
      expect(p.qr_data.checkout_url.startsWith('https://pay.example.test/sbx/sandbox/pay/')).toBe(true);
      const token = p.payment_token;
      const view = await behindProxy.fetch(new Request(`http://internal:8080/sandbox/pay/${token}`));
      const html = await view.text();
      expect(html).toContain(`action="/sbx/sandbox/pay/${token}/pay"`);
      expect(html).toContain(`src="https://pay.example.test/sbx/sandbox/v1/qr/${token}"`);
      expect(view.headers.get('content-security-policy')).toContain("img-src 'self' https://pay.example.test");
      const paid = await behindProxy.fetch(new Request(`http://internal:8080/sandbox/pay/${token}/pay`, { method: 'POST' }));
      expect(paid.headers.get('location')).toBe(`/sbx/sandbox/pay/${token}`);
    } finally {
      await behindProxy.close();
    }
  });
});
