import { describe, expect, it, vi } from 'vitest';
import { call, control, createPayment, expectEnvelope, memorySandbox, sandboxPerTest, statusOf } from '../../support/http.js';

const START = Date.UTC(2030, 0, 15, 10, 0, 0);
const START_S = START / 1000;

const each = sandboxPerTest(START);

const advance = (seconds: number, key?: string) => call(each.sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds }, ...(key ? { key } : {}) });

describe('the sandbox clock', () => {
  it('GET /sandbox/v1/clock answers the merchant time in seconds and ISO, with its offset', async () => {
    const answer = await call(each.sandbox, 'GET', '/sandbox/v1/clock');
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ now: START_S, now_iso: '2030-01-15T10:00:00.000Z', offset_seconds: 0 });
  });

  it('advance moves only this merchant clock forward, and it stays moved', async () => {
    const answer = await advance(90);
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ now: START_S + 90, offset_seconds: 90, changed: 0 });
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/clock')).body).toMatchObject({ now: START_S + 90, offset_seconds: 90 });
    const other = await call(each.sandbox, 'GET', '/sandbox/v1/clock', { key: 'sk_sandbox_demo_signed_key' });
    expect(other.body.offset_seconds).toBe(0);
  });

  it('expires P and W payments once the 15 minute time-to-live passes, not before', async () => {
    const pending = (await createPayment(each.sandbox)).payment_id;
    const waiting = (await createPayment(each.sandbox, { payer: 'someone' })).payment_id;
    expect((await advance(899)).body.changed).toBe(0);
    expect((await statusOf(each.sandbox, pending)).payment_status).toBe('P');
    expect((await statusOf(each.sandbox, waiting)).payment_status).toBe('W');
    const answer = await advance(1);
    expect(answer.body.changed).toBe(2);
    expect((await statusOf(each.sandbox, pending)).payment_status).toBe('E');
    expect((await statusOf(each.sandbox, waiting)).payment_status).toBe('E');
    const events = (await call(each.sandbox, 'GET', `/sandbox/v1/payments/${pending}/events`)).body.events;
    expect(events.at(-1)).toMatchObject({ type: 'expired', from: 'P', to: 'E', at: START_S + 900, actor: 'clock', reason: 'time-to-live passed' });
  });

  it('a status query after the time-to-live sees E even without an advance call', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    each.clock.advance(15 * 60_000);
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('E');
  });

  it('expires payments in the background, while nobody calls the API', async () => {
    const background = await memorySandbox({ clock: each.clock.clock, scheduler: true });
    try {
      const { payment_id } = await createPayment(background);
      each.clock.advance(15 * 60_000 + 1);
      await vi.waitFor(async () => {
        const stored = await background.services.store.payment('DEMO-MERCHANT-1', payment_id);
        expect(stored?.status).toBe('E');
      }, { timeout: 5000, interval: 100 });
    } finally {
      await background.close();
    }
  });

  it('honours a merchant time-to-live other than the default', async () => {
    const merchant = await each.sandbox.control.enroll({ qr_ttl_seconds: 60 });
    const { payment_id } = await createPayment(each.sandbox, { payee: merchant.payeeId }, { key: merchant.apiKey });
    await advance(59, merchant.apiKey);
    expect((await statusOf(each.sandbox, payment_id, merchant.apiKey)).payment_status).toBe('P');
    await advance(1, merchant.apiKey);
    expect((await statusOf(each.sandbox, payment_id, merchant.apiKey)).payment_status).toBe('E');
  });

  it('settles paid payments at the first UTC midnight of the merchant clock', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_PAYS' });
    await advance(14 * 3600 - 1);
    expect((await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}`)).body.payment.settled).toBe(false);
    expect((await advance(1)).body.changed).toBe(1);
    const view = (await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}`)).body.payment;
    expect(view).toMatchObject({ payment_status: 'A', settled: true, settled_at: Date.UTC(2030, 0, 16) / 1000 });
  });

  it('does not settle when the merchant turned auto-settlement off', async () => {
    const merchant = await each.sandbox.control.enroll({ auto_settle: false });
    const { payment_id } = await createPayment(each.sandbox, { payee: merchant.payeeId, payer: 'PAYER_PAYS' }, { key: merchant.apiKey });
    await advance(3 * 86_400, merchant.apiKey);
    expect((await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}`, { key: merchant.apiKey })).body.payment.settled).toBe(false);
  });
});

describe('magic payers', () => {
  it('PAYER_PAYS given at create pays at once', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_PAYS' });
    const status = await statusOf(each.sandbox, payment_id);
    expect(status).toMatchObject({ payment_status: 'A', payment_date: START_S, payer: { id: 'PAYER_PAYS' } });
    const events = (await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}/events`)).body.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['created', 'paid']);
    expect(events[1]).toMatchObject({ from: 'W', to: 'A', actor: 'payer' });
  });

  it('PAYER_PAYS assigned later pays at once', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    expectEnvelope(await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/assign`, { body: { payer: 'PAYER_PAYS' } }), 200);
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('A');
  });

  it.each([
    ['at create', true],
    ['on assign', false],
  ])('PAYER_DECLINES %s makes the payment fail', async (_when, atCreate) => {
    const { payment_id } = await createPayment(each.sandbox, atCreate ? { payer: 'PAYER_DECLINES' } : {});
    if (!atCreate) await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/assign`, { body: { payer: 'PAYER_DECLINES' } });
    expect(await statusOf(each.sandbox, payment_id)).toMatchObject({ payment_status: 'F', payment_date: null });
  });

  it.each([
    ['at create', true],
    ['on assign', false],
  ])('PAYER_PAYS_LATER %s pays 30 sandbox seconds after assignment', async (_when, atCreate) => {
    const { payment_id } = await createPayment(each.sandbox, atCreate ? { payer: 'PAYER_PAYS_LATER' } : {});
    if (!atCreate) await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/assign`, { body: { payer: 'PAYER_PAYS_LATER' } });
    expect((await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}`)).body.payment).toMatchObject({ payment_status: 'W', pays_at: START_S + 30 });
    await advance(29);
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('W');
    expect((await advance(1)).body.changed).toBe(1);
    expect(await statusOf(each.sandbox, payment_id)).toMatchObject({ payment_status: 'A', payment_date: START_S + 30 });
  });

  it('PAYER_PAYS_LATER pays when due even when the clock jumps past the time-to-live', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_PAYS_LATER' });
    await advance(3600);
    expect(await statusOf(each.sandbox, payment_id)).toMatchObject({ payment_status: 'A', payment_date: START_S + 30 });
  });

  it('PAYER_NEVER_PAYS stays W until the payment expires', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_NEVER_PAYS' });
    await advance(899);
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('W');
    await advance(1);
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('E');
  });

  it('a pickup with a magic payer follows it too', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    const answer = await control(each.sandbox, payment_id, 'pickup', { payer: 'PAYER_PAYS' });
    expect(answer.body.payment.payment_status).toBe('A');
  });
});

describe('magic amounts', () => {
  it.each([
    [900.01, 500],
    [900.02, 503],
  ])('amount %s answers %s and commits nothing', async (amount, code) => {
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: { payee: 'DEMO-MERCHANT-1', product_type: 'QR_DYNAMIC', merchant_ref_no: `magic-${code}`, amount } });
    expectEnvelope(answer, code);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments')).body.total).toBe(0);
    // The reference stays free: nothing was committed.
    await createPayment(each.sandbox, { merchant_ref_no: `magic-${code}` });
  });

  it('amount 900.03 commits, then holds the response and answers 504', async () => {
    const quick = await memorySandbox({ clock: each.clock.clock, config: { timeoutHoldMs: 20 } });
    try {
      const answer = await call(quick, 'POST', '/openapi/v1/payments/payment', { body: { payee: 'DEMO-MERCHANT-1', product_type: 'QR_DYNAMIC', merchant_ref_no: 'magic-timeout', amount: 900.03 } });
      expectEnvelope(answer, 504);
      const list = await call(quick, 'GET', '/sandbox/v1/payments?merchant_ref_no=magic-timeout');
      expect(list.body.total).toBe(1);
      expect(list.text).toContain('"original_amount":900.03');
    } finally {
      await quick.close();
    }
  });

  it('amount 900.04 commits, then drops the connection (fetch rejects in-process)', async () => {
    const request = new Request('http://sandbox.test/openapi/v1/payments/payment', {
      method: 'POST',
      headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ payee: 'DEMO-MERCHANT-1', product_type: 'QR_DYNAMIC', merchant_ref_no: 'magic-drop', amount: 900.04 }),
    });
    await expect(each.sandbox.fetch(request)).rejects.toThrow(/dropped/);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments?merchant_ref_no=magic-drop')).body.total).toBe(1);
  });
});
