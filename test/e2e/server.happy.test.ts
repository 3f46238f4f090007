/** Every route through a real listening server and the global fetch, as an integrator's client sees it. */
import { describe, expect, it } from 'vitest';
import { decodeEmvPayload } from '../../src/domain/emv.js';
import { signBody } from '../../src/domain/signature.js';
import { DEMO_KEY, DEMO_PAYEE, SIGNED_KEY, SIGNED_PAYEE, SIGNED_SALT, createBody, expectEnvelope, listeningSandbox, toAnswer } from '../support/http.js';
import type { Answer } from '../support/http.js';

const live = listeningSandbox({ scheduler: false, config: { timeoutHoldMs: 200 } });

async function http(method: string, path: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? DEMO_KEY : options.key;
  if (key !== null) headers['Service-Api-Key'] = key;
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return toAnswer(await fetch(`${live.server.url}${path}`, init));
}

async function create(overrides: Record<string, unknown> = {}, prefix = '/openapi/v1') {
  const answer = await http('POST', `${prefix}/payments/payment`, { body: createBody(overrides) });
  expectEnvelope(answer, 200);
  return answer.body as { payment_id: string; payment_token: string; payment_code: string; qr_data: { payload: string; image_url: string; checkout_url: string } };
}

it('listens on a random free port', () => {
  expect(live.server.port).toBeGreaterThan(0);
  expect(live.server.port).not.toBe(8080);
  expect(live.server.url).toBe(`http://127.0.0.1:${live.server.port}`);
});

describe.each(['/openapi/v1', '/v1'])('public routes over HTTP under %s', (prefix) => {
  it('POST /payments/payment creates, with URLs on this server and a valid EMV payload', async () => {
    const created = await create({}, prefix);
    expect(created.qr_data.image_url).toBe(`${live.server.url}/sandbox/v1/qr/${created.payment_token}`);
    expect(created.qr_data.checkout_url.startsWith(live.server.url)).toBe(true);
    expect(decodeEmvPayload(created.qr_data.payload).paymentCode).toBe(created.payment_code);
  });

  it('GET /payments/payment/{id} answers the status with two-decimal amounts', async () => {
    const { payment_id } = await create({ amount: 7 }, prefix);
    const answer = await http('GET', `${prefix}/payments/payment/${payment_id}`);
    expectEnvelope(answer, 200);
    expect(answer.text).toContain('"original_amount":7.00,');
    expect(answer.body).toMatchObject({ payment_status: 'P', payment_date: null });
  });

  it('POST /payments/payment/{id}/assign', async () => {
    const { payment_id } = await create({}, prefix);
    expectEnvelope(await http('POST', `${prefix}/payments/payment/${payment_id}/assign`, { body: { payer: 'e2e-payer' } }), 200);
    expect((await http('GET', `${prefix}/payments/payment/${payment_id}`)).body.payment_status).toBe('W');
  });

  it('POST /payments/payment/{id}/cancel', async () => {
    const { payment_id } = await create({}, prefix);
    expectEnvelope(await http('POST', `${prefix}/payments/payment/${payment_id}/cancel`, { body: { reason: 'e2e' } }), 200);
    expect((await http('GET', `${prefix}/payments/payment/${payment_id}`)).body.payment_status).toBe('V');
  });

  it('POST /payments/payment/{id}/void', async () => {
    const { payment_id } = await create({ payer: 'PAYER_PAYS' }, prefix);
    expectEnvelope(await http('POST', `${prefix}/payments/payment/${payment_id}/void`, { body: { reason: 'e2e' } }), 200);
    expect((await http('GET', `${prefix}/payments/payment/${payment_id}`)).body.payment_status).toBe('V');
  });
});

describe('control routes over HTTP', () => {
  it('POST /sandbox/v1/merchants enrols, and the new key works', async () => {
    const enrolled = await http('POST', '/sandbox/v1/merchants', { key: null, body: { name: 'E2E Shop', home_currency: 'EUR' } });
    expectEnvelope(enrolled, 200);
    const answer = await http('POST', '/openapi/v1/payments/payment', { key: enrolled.body.api_key, body: createBody({ payee: enrolled.body.payee_id }) });
    expectEnvelope(answer, 200);
  });

  it('POST /sandbox/v1/payments/{id}/pickup', async () => {
    const { payment_id } = await create();
    const answer = await http('POST', `/sandbox/v1/payments/${payment_id}/pickup`);
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_status).toBe('W');
  });

  it('POST /sandbox/v1/payments/{id}/pay in another currency', async () => {
    const { payment_id } = await create({ amount: 100 });
    const answer = await http('POST', `/sandbox/v1/payments/${payment_id}/pay`, { body: { paid_currency_code: 'USD' } });
    expectEnvelope(answer, 200);
    expect(answer.text).toContain('"paid_currency_code":"USD","paid_amount":74.07,');
    expect(answer.body.payment.payment_date).toBeTypeOf('number');
  });

  it('POST /sandbox/v1/payments/{id}/fail', async () => {
    const { payment_id } = await create();
    const answer = await http('POST', `/sandbox/v1/payments/${payment_id}/fail`, { body: { reason: 'declined' } });
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_status).toBe('F');
  });

  it('POST /sandbox/v1/payments/{id}/expire', async () => {
    const { payment_id } = await create();
    const answer = await http('POST', `/sandbox/v1/payments/${payment_id}/expire`);
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_status).toBe('E');
  });

  it('POST /sandbox/v1/payments/{id}/settle', async () => {
    const { payment_id } = await create({ payer: 'PAYER_PAYS' });
    const answer = await http('POST', `/sandbox/v1/payments/${payment_id}/settle`);
    expectEnvelope(answer, 200);
    expect(answer.body.payment.settled).toBe(true);
  });

  it('POST /sandbox/v1/settle', async () => {
    await create({ payer: 'PAYER_PAYS' });
    const answer = await http('POST', '/sandbox/v1/settle');
    expectEnvelope(answer, 200);
    expect(answer.body.settled).toBeGreaterThanOrEqual(1);
  });

  it('GET /sandbox/v1/clock and POST /sandbox/v1/clock/advance', async () => {
    const merchant = await live.sandbox.control.enroll();
    const before = await http('GET', '/sandbox/v1/clock', { key: merchant.apiKey });
    expectEnvelope(before, 200);
    const created = await http('POST', '/openapi/v1/payments/payment', { key: merchant.apiKey, body: createBody({ payee: merchant.payeeId }) });
    const advanced = await http('POST', '/sandbox/v1/clock/advance', { key: merchant.apiKey, body: { seconds: 900 } });
    expectEnvelope(advanced, 200);
    expect(advanced.body.offset_seconds).toBe(900);
    expect(advanced.body.now).toBeGreaterThanOrEqual(before.body.now + 900);
    expect(advanced.body.changed).toBe(1);
    const status = await http('GET', `/openapi/v1/payments/payment/${created.body.payment_id}`, { key: merchant.apiKey });
    expect(status.body.payment_status).toBe('E');
  });

  it('GET /sandbox/v1/payments with filters', async () => {
    const { payment_id } = await create({ merchant_ref_no: 'e2e-list-ref' });
    const answer = await http('GET', '/sandbox/v1/payments?merchant_ref_no=e2e-list-ref&status=P&limit=5');
    expectEnvelope(answer, 200);
    expect(answer.body.payments.map((p: { payment_id: string }) => p.payment_id)).toEqual([payment_id]);
  });

  it('GET /sandbox/v1/payments/{id}', async () => {
    const { payment_id, payment_token } = await create();
    const answer = await http('GET', `/sandbox/v1/payments/${payment_id}`);
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_token).toBe(payment_token);
  });

  it('GET /sandbox/v1/payments/{id}/events', async () => {
    const { payment_id } = await create({ payer: 'PAYER_PAYS' });
    const answer = await http('GET', `/sandbox/v1/payments/${payment_id}/events`);
    expectEnvelope(answer, 200);
    expect(answer.body.events.map((e: { type: string }) => e.type)).toEqual(['created', 'paid']);
  });

  it('POST /sandbox/v1/reset', async () => {
    const merchant = await live.sandbox.control.enroll();
    await http('POST', '/openapi/v1/payments/payment', { key: merchant.apiKey, body: createBody({ payee: merchant.payeeId }) });
    const answer = await http('POST', '/sandbox/v1/reset', { key: merchant.apiKey });
    expectEnvelope(answer, 200);
    expect(answer.body.erased).toBe(1);
    expect((await http('GET', '/sandbox/v1/payments', { key: merchant.apiKey })).body.total).toBe(0);
  });

  it('GET /sandbox/v1/codes and /sandbox/v1/magic', async () => {
    expectEnvelope(await http('GET', '/sandbox/v1/codes', { key: null }), 200);
    expectEnvelope(await http('GET', '/sandbox/v1/magic', { key: null }), 200);
  });

  it('POST /sandbox/v1/tools/sign, and the signature is accepted', async () => {
    const body = createBody({ payee: SIGNED_PAYEE });
    const tool = await http('POST', '/sandbox/v1/tools/sign', { key: SIGNED_KEY, body });
    expectEnvelope(tool, 200);
    expect(tool.body.sign).toBe(signBody(body, SIGNED_SALT));
    expectEnvelope(await http('POST', '/openapi/v1/payments/payment', { key: SIGNED_KEY, body: { ...body, sign_type: 'SHA512', sign: tool.body.sign } }), 200);
  });

  it('GET /sandbox/v1/qr/{token}: PNG and SVG with ETag, then 304', async () => {
    const { qr_data } = await create();
    const png = await fetch(qr_data.image_url);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const etag = png.headers.get('etag')!;
    const cached = await fetch(qr_data.image_url, { headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    const svg = await fetch(`${qr_data.image_url}?format=svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toContain('<svg');
  });

  it('GET /healthz without a key', async () => {
    const answer = await http('GET', '/healthz', { key: null });
    expectEnvelope(answer, 200);
  });
});

describe('magic amounts over a real connection', () => {
  it('900.04 commits, then the connection closes without an answer', async () => {
    await expect(http('POST', '/openapi/v1/payments/payment', { body: createBody({ merchant_ref_no: 'e2e-drop', amount: 900.04 }) })).rejects.toThrow();
    const list = await http('GET', '/sandbox/v1/payments?merchant_ref_no=e2e-drop');
    expect(list.body.total).toBe(1);
    // The server is still up for everyone else.
    expectEnvelope(await http('GET', '/healthz', { key: null }), 200);
  });

  it('900.03 commits, then holds the answer (504 after the hold)', async () => {
    const answer = await http('POST', '/openapi/v1/payments/payment', { body: createBody({ merchant_ref_no: 'e2e-timeout', amount: 900.03 }) });
    expectEnvelope(answer, 504);
    expect((await http('GET', '/sandbox/v1/payments?merchant_ref_no=e2e-timeout')).body.total).toBe(1);
  });

  it('the demo merchant is the one the README names', () => {
    expect(live.sandbox.demoMerchants.map((m) => m.payeeId)).toEqual([DEMO_PAYEE, SIGNED_PAYEE]);
  });
});
