import { describe, expect, it } from 'vitest';
import { call, control, createPayment, expectEnvelope, sandboxPerTest, statusOf } from '../../support/http.js';

const START = Date.UTC(2030, 0, 15, 10, 0, 0);
const START_S = START / 1000;

const each = sandboxPerTest(START);

async function events(id: string) {
  const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${id}/events`);
  expectEnvelope(answer, 200);
  return answer.body.events as { type: string; from: string | null; to: string; at: number; at_iso: string; reason: string | null; actor: string }[];
}

describe('control: pickup', () => {
  it('moves P to W with a generated payer', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    const answer = await control(each.sandbox, payment_id, 'pickup');
    expectEnvelope(answer, 200);
    expect(answer.body.payment).toMatchObject({ payment_id, payment_status: 'W' });
    expect(answer.body.payment.payer.id).toMatch(/^payer_[a-z0-9]{12}$/);
    expect((await events(payment_id)).at(-1)).toMatchObject({ type: 'payer_assigned', from: 'P', to: 'W', actor: 'sandbox' });
  });

  it('uses the payer of the body when there is one', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    const answer = await control(each.sandbox, payment_id, 'pickup', { payer: 'scanner-9' });
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payer.id).toBe('scanner-9');
  });
});

describe('control: pay', () => {
  it.each(['P', 'W'])('moves %s to A and sets payment_date, payer, source and fee', async (from) => {
    const { payment_id } = await createPayment(each.sandbox, from === 'W' ? { payer: 'the-payer', amount: 100 } : { amount: 100 });
    each.clock.advance(5_000);
    const answer = await control(each.sandbox, payment_id, 'pay');
    expectEnvelope(answer, 200);
    expect(answer.body.payment).toMatchObject({ payment_status: 'A', payment_date: START_S + 5, settled: false });
    if (from === 'W') expect(answer.body.payment.payer.id).toBe('the-payer');
    else expect(answer.body.payment.payer.id).toMatch(/^payer_/);
    expect(answer.body.payment.source).toMatchObject({ type: 'WALLET', provider: 'SANDBOX_WALLET' });
    expect(answer.text).toContain('"fee":[{"type":"MDR","currency_code":"SGD","amount":0.60}]');
    expect((await events(payment_id)).at(-1)).toMatchObject({ type: 'paid', from, to: 'A', at: START_S + 5 });
  });

  it('converts to paid_currency_code with the rate table and keeps the original amount', async () => {
    const { payment_id } = await createPayment(each.sandbox, { amount: 100, currency_code: 'SGD' });
    const answer = await control(each.sandbox, payment_id, 'pay', { paid_currency_code: 'USD', payer: 'traveller' });
    expectEnvelope(answer, 200);
    // 100.00 SGD at 1.35 SGD per USD is 74.07 USD.
    expect(answer.text).toContain('"original_currency_code":"SGD","original_amount":100.00,"paid_currency_code":"USD","paid_amount":74.07,');
    const status = await call(each.sandbox, 'GET', `/openapi/v1/payments/payment/${payment_id}`);
    expect(status.text).toContain('"paid_currency_code":"USD","paid_amount":74.07,');
    expect(status.body.payer.id).toBe('traveller');
  });

  it('converts through USD between two other currencies', async () => {
    const { payment_id } = await createPayment(each.sandbox, { amount: 10, currency_code: 'EUR' });
    const answer = await control(each.sandbox, payment_id, 'pay', { paid_currency_code: 'IDR' });
    expectEnvelope(answer, 200);
    // 10.00 EUR / 0.92 * 15800 = 171739.13 IDR.
    expect(answer.text).toContain('"paid_currency_code":"IDR","paid_amount":171739.13,');
  });
});

describe('control: fail, expire, settle', () => {
  it('fail moves W to F and keeps the reason', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'p1' });
    const answer = await control(each.sandbox, payment_id, 'fail', { reason: 'insufficient funds' });
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_status).toBe('F');
    expect((await events(payment_id)).at(-1)).toMatchObject({ type: 'failed', from: 'W', to: 'F', reason: 'insufficient funds', actor: 'sandbox' });
  });

  it('fail without a body gives a default reason', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    expectEnvelope(await control(each.sandbox, payment_id, 'fail'), 200);
    expect((await events(payment_id)).at(-1)?.reason).toMatch(/declined/);
  });

  it('expire moves P to E before the time-to-live', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    const answer = await control(each.sandbox, payment_id, 'expire');
    expectEnvelope(answer, 200);
    expect(answer.body.payment.payment_status).toBe('E');
    expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('E');
  });

  it('settle flags a paid payment as settled; the status stays A', async () => {
    const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_PAYS' });
    const answer = await control(each.sandbox, payment_id, 'settle');
    expectEnvelope(answer, 200);
    expect(answer.body.payment).toMatchObject({ payment_status: 'A', settled: true, settled_at: START_S });
    expect(answer.body.description).toContain('settled');
    expect((await events(payment_id)).at(-1)).toMatchObject({ type: 'settled', from: 'A', to: 'A' });
  });

  it('settle-all settles every paid, unsettled payment of the merchant and nothing else', async () => {
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push((await createPayment(each.sandbox, { payer: 'PAYER_PAYS' })).payment_id);
    const open = (await createPayment(each.sandbox)).payment_id;
    const answer = await call(each.sandbox, 'POST', '/sandbox/v1/settle');
    expectEnvelope(answer, 200);
    expect(answer.body.settled).toBe(3);
    for (const id of paid) expect((await call(each.sandbox, 'GET', `/sandbox/v1/payments/${id}`)).body.payment.settled).toBe(true);
    expect((await statusOf(each.sandbox, open)).payment_status).toBe('P');
    const again = await call(each.sandbox, 'POST', '/sandbox/v1/settle', { body: {} });
    expect(again.body.settled).toBe(0);
  });
});

describe('control: list, one payment, events', () => {
  it('lists newest first, with status and merchant_ref_no filters and paging', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createPayment(each.sandbox, { merchant_ref_no: `list-${i}`, payer: i % 2 === 0 ? 'someone' : undefined })).payment_id);
      each.clock.advance(1000);
    }
    const all = await call(each.sandbox, 'GET', '/sandbox/v1/payments');
    expectEnvelope(all, 200);
    expect(all.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(all.body.payments.map((p: { payment_id: string }) => p.payment_id)).toEqual([...ids].reverse());

    const waiting = await call(each.sandbox, 'GET', '/sandbox/v1/payments?status=W');
    expect(waiting.body.total).toBe(3);
    expect(waiting.body.payments.every((p: { payment_status: string }) => p.payment_status === 'W')).toBe(true);

    const byRef = await call(each.sandbox, 'GET', '/sandbox/v1/payments?merchant_ref_no=list-3');
    expect(byRef.body.total).toBe(1);
    expect(byRef.body.payments[0].payment_id).toBe(ids[3]);

    const page = await call(each.sandbox, 'GET', '/sandbox/v1/payments?limit=2&offset=2');
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.body.payments.map((p: { payment_id: string }) => p.payment_id)).toEqual([ids[2], ids[1]]);

    const past = await call(each.sandbox, 'GET', '/sandbox/v1/payments?offset=10');
    expect(past.body.total).toBe(5);
    expect(past.body.payments).toEqual([]);
  });

  it('shows one payment with what only the sandbox knows', async () => {
    const { payment_id, payment_token } = await createPayment(each.sandbox, { amount: 12 });
    const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}`);
    expectEnvelope(answer, 200);
    expect(answer.body.payment).toMatchObject({ payment_id, payment_token, settled: false, created_at: START_S, expires_at: START_S + 900, pays_at: null });
    expect(answer.text).toContain('"original_amount":12.00');
  });

  it('shows the whole history, oldest first, with ISO and Unix-second times and the actor', async () => {
    const { payment_id } = await createPayment(each.sandbox);
    each.clock.advance(2000);
    await control(each.sandbox, payment_id, 'pickup', { payer: 'p' });
    each.clock.advance(2000);
    await control(each.sandbox, payment_id, 'pay');
    each.clock.advance(2000);
    await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/void`, { body: { reason: 'undo' } });
    const answer = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}/events`);
    expectEnvelope(answer, 200);
    expect(answer.body).toMatchObject({ payment_id, payment_status: 'V', settled: false });
    expect(answer.body.events).toEqual([
      { type: 'created', from: null, to: 'P', at: START_S, at_iso: '2030-01-15T10:00:00.000Z', reason: null, actor: 'merchant' },
      { type: 'payer_assigned', from: 'P', to: 'W', at: START_S + 2, at_iso: '2030-01-15T10:00:02.000Z', reason: null, actor: 'sandbox' },
      { type: 'paid', from: 'W', to: 'A', at: START_S + 4, at_iso: '2030-01-15T10:00:04.000Z', reason: null, actor: 'sandbox' },
      { type: 'voided', from: 'A', to: 'V', at: START_S + 6, at_iso: '2030-01-15T10:00:06.000Z', reason: 'undo', actor: 'merchant' },
    ]);
  });
});

describe('control: reset', () => {
  it("erases this merchant's payments and clock offset, keeps its key, and frees its merchant_ref_no values", async () => {
    for (let i = 0; i < 3; i++) await createPayment(each.sandbox, { merchant_ref_no: `reset-${i}` });
    await call(each.sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 3600 } });
    const answer = await call(each.sandbox, 'POST', '/sandbox/v1/reset');
    expectEnvelope(answer, 200);
    expect(answer.body.erased).toBe(3);
    // The description names all it erased, as the control API's page does, and what stays.
    expect(answer.body.description).toBe(
      'Erased 3 payments, the request journal, the webhook deliveries, the idempotency keys, the readiness evidence and the fault rules, ' +
        'and reset the sandbox clock; the API key, the settings and the webhook URL with its secret stay.',
    );
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments')).body.total).toBe(0);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/clock')).body).toMatchObject({ offset_seconds: 0, now: START_S });
    await createPayment(each.sandbox, { merchant_ref_no: 'reset-0' });
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments')).body.total).toBe(1);
  });

  it("leaves other merchants' payments alone", async () => {
    const signedBefore = await call(each.sandbox, 'GET', '/sandbox/v1/payments', { key: 'sk_sandbox_demo_signed_key' });
    await each.sandbox.control.enroll();
    const other = await each.sandbox.control.enroll({ name: 'Other' });
    await createPayment(each.sandbox, { payee: other.payeeId }, { key: other.apiKey });
    await createPayment(each.sandbox);
    expectEnvelope(await call(each.sandbox, 'POST', '/sandbox/v1/reset', { body: {} }), 200);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments', { key: other.apiKey })).body.total).toBe(1);
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments', { key: 'sk_sandbox_demo_signed_key' })).text).toBe(signedBefore.text);
  });
});

describe('catalogues', () => {
  it('GET /sandbox/v1/codes lists every code the sandbox answers', async () => {
    const answer = await call(each.sandbox, 'GET', '/sandbox/v1/codes');
    expectEnvelope(answer, 200);
    expect(answer.body.codes.map((c: { code: number }) => c.code)).toEqual(expect.arrayContaining([200, 400, 401, 402, 404, 405, 413, 415, 429, 500, 503, 504]));
  });

  it('GET /sandbox/v1/magic lists the magic payers and amounts', async () => {
    const answer = await call(each.sandbox, 'GET', '/sandbox/v1/magic');
    expectEnvelope(answer, 200);
    expect(answer.body.payers.map((p: { value: string }) => p.value)).toEqual(['PAYER_PAYS', 'PAYER_PAYS_LATER', 'PAYER_DECLINES', 'PAYER_NEVER_PAYS']);
    expect(answer.text).toContain('"value":"900.01"');
    expect(answer.body.amounts).toHaveLength(4);
  });
});
