import { describe, expect, it } from 'vitest';
import { decodeEmvPayload } from '../../../src/domain/emv.js';
import { signBody } from '../../../src/domain/signature.js';
import {
  DEMO_PAYEE,
  PREFIXES,
  SIGNED_KEY,
  SIGNED_PAYEE,
  SIGNED_SALT,
  call,
  control,
  createBody,
  createPayment,
  enroll,
  expectEnvelope,
  manualClock,
  memorySandbox,
  sandboxPerTest,
  statusOf,
} from '../../support/http.js';

const START = Date.UTC(2030, 0, 15, 10, 0, 0);

describe.each(PREFIXES)('public API under %s', (prefix) => {
  const each = sandboxPerTest(START);

  describe('create', () => {
    it('answers payment_id, payment_code, payment_token, qr_data and metadata, nothing else', async () => {
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { body: createBody({ metadata: { order: 7, note: 'a b' } }) });
      expectEnvelope(answer, 200);
      expect(Object.keys(answer.body)).toEqual(['code', 'description', 'payment_id', 'payment_code', 'payment_token', 'qr_data', 'metadata']);
      expect(answer.body.payment_id).toMatch(/^pay_[0-9A-Za-z]{22}$/);
      expect(answer.body.payment_token).toMatch(/^ptok_[0-9A-Za-z_-]{32}$/);
      expect(answer.body.payment_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
      expect(answer.body.metadata).toEqual({ order: 7, note: 'a b' });
      expect(answer.body.description).toContain('status P');
    });

    it('builds image and checkout URLs on the origin each request came to (host, port and scheme)', async () => {
      for (const origin of ['http://sandbox.test', 'http://sandbox.test:8080', 'https://sandbox.test', 'http://other.example:9', 'http://sandbox.test']) {
        const response = await each.sandbox.fetch(
          new Request(`${origin}${prefix}/payments/payment`, { method: 'POST', headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json' }, body: JSON.stringify(createBody()) }),
        );
        const body = (await response.json()) as { payment_token: string; qr_data: { image_url: string; checkout_url: string } };
        expect(body.qr_data.image_url).toBe(`${origin}/sandbox/v1/qr/${body.payment_token}`);
        expect(body.qr_data.checkout_url).toBe(`${origin}/sandbox/pay/${body.payment_token}`);
      }
    });

    it('returns metadata as sent, a key "__proto__" included, at create and at status', async () => {
      const text = `{"payee":"DEMO-MERCHANT-1","product_type":"QR_DYNAMIC","merchant_ref_no":"${`proto-${prefix.length}`}","amount":1,"metadata":{"__proto__":{"x":1},"a":2}}`;
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { body: text });
      expectEnvelope(answer, 200);
      for (const shown of [answer.body.metadata, (await statusOf(each.sandbox, answer.body.payment_id as string)).metadata] as Record<string, unknown>[]) {
        expect(Object.keys(shown)).toEqual(['__proto__', 'a']);
        expect(Object.getOwnPropertyDescriptor(shown, '__proto__')?.value).toEqual({ x: 1 });
        expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
      }
      expect(answer.text).toContain('"metadata":{"__proto__":{"x":1},"a":2}');
    });

    it('answers qr_data with an EMVCo payload carrying payment_code, and image and checkout URLs', async () => {
      const created = await createPayment(each.sandbox, { amount: 10.5 }, { prefix });
      const qr = created.qr_data as { payload: string; format: string; image_url: string; checkout_url: string; expires_at: number };
      expect(Object.keys(qr)).toEqual(['payload', 'format', 'image_url', 'checkout_url', 'expires_at']);
      expect(qr.format).toBe('EMVCO_MPM');
      expect(qr.image_url).toBe(`http://sandbox.test/sandbox/v1/qr/${created.payment_token}`);
      expect(qr.checkout_url).toBe(`http://sandbox.test/sandbox/pay/${created.payment_token}`);
      expect(qr.expires_at).toBe(START / 1000 + 15 * 60);
      const decoded = decodeEmvPayload(qr.payload);
      expect(decoded.valid).toBe(true);
      expect(decoded.paymentCode).toBe(created.payment_code);
      const byTag = Object.fromEntries(decoded.tags.map((t) => [t.tag, t]));
      expect(byTag['01']?.value).toBe('12');
      expect(byTag['26']?.children?.map((c) => c.value)).toEqual(['COM.PAYREQ.SANDBOX', DEMO_PAYEE]);
      expect(byTag['52']?.value).toBe('5812');
      expect(byTag['53']?.value).toBe('702');
      expect(byTag['54']?.value).toBe('10.50');
      expect(byTag['58']?.value).toBe('SG');
      expect(byTag['62']?.children).toEqual([{ tag: '05', name: 'Reference Label', value: created.payment_code }]);
    });

    it('does not render a QR image inside create', async () => {
      const created = await createPayment(each.sandbox, {}, { prefix });
      expect(created.qr_data).not.toHaveProperty('image');
    });

    it('uses the currency sent, or the home currency by default', async () => {
      const usd = await createPayment(each.sandbox, { currency_code: 'USD', amount: 5 }, { prefix });
      expect(await statusOf(each.sandbox, usd.payment_id)).toMatchObject({ original_currency_code: 'USD', paid_currency_code: 'USD' });
      expect(decodeEmvPayload(usd.qr_data.payload as string).tags.find((t) => t.tag === '53')?.value).toBe('840');
      const home = await createPayment(each.sandbox, {}, { prefix });
      expect((await statusOf(each.sandbox, home.payment_id)).original_currency_code).toBe('SGD');
    });

    it('with a payer, creates the payment in W with that payer', async () => {
      const created = await createPayment(each.sandbox, { payer: 'customer-77' }, { prefix });
      const status = await statusOf(each.sandbox, created.payment_id);
      expect(status.payment_status).toBe('W');
      expect(status.payer).toMatchObject({ id: 'customer-77' });
      expect(status.payer.name).toBeTypeOf('string');
    });

    it('says to show qr_data only while a payer is still to pay: a magic payer decides at once', async () => {
      const open = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { body: createBody() });
      expect(open.body.description).toMatch(/status P .*; show qr_data to the payer\.$/);
      const paid = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { body: createBody({ payer: 'PAYER_PAYS' }) });
      expect(paid.body.description).toMatch(/status A .*; the magic payer decided it at once, so no payer needs its qr_data\.$/);
    });

    it.each([
      [0.01, '0.01'],
      [100, '100.00'],
      [10.5, '10.50'],
      [9999999999.99, '9999999999.99'],
    ])('writes amount %s as %s in the JSON text of the status', async (amount, text) => {
      const created = await createPayment(each.sandbox, { amount }, { prefix });
      const answer = await call(each.sandbox, 'GET', `${prefix}/payments/payment/${created.payment_id}`);
      expect(answer.text).toContain(`"original_amount":${text},`);
      expect(answer.text).toContain(`"paid_amount":${text},`);
    });

    it('accepts a null optional field as absent', async () => {
      const created = await createPayment(each.sandbox, { currency_code: null, payer: null, metadata: null }, { prefix });
      expect(await statusOf(each.sandbox, created.payment_id)).toMatchObject({ payment_status: 'P', original_currency_code: 'SGD', metadata: null });
    });

    it('answers a duplicate merchant_ref_no with 402 carrying the existing payment_id, and stores nothing', async () => {
      const first = await createPayment(each.sandbox, { merchant_ref_no: 'dup-1' }, { prefix });
      const again = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { body: createBody({ merchant_ref_no: 'dup-1', amount: 99 }) });
      expectEnvelope(again, 402);
      expect(again.body.payment_id).toBe(first.payment_id);
      expect(again.body.description).toContain('dup-1');
      expect(Object.keys(again.body)).toEqual(['code', 'description', 'payment_id']);
      const list = await call(each.sandbox, 'GET', '/sandbox/v1/payments?merchant_ref_no=dup-1');
      expect(list.body.total).toBe(1);
      expect(list.body.payments[0].original_amount).toBe(10.5);
    });

    it('accepts a signed create for a merchant that requires signatures', async () => {
      const body = createBody({ payee: SIGNED_PAYEE, metadata: { b: 2, a: 'x y' } });
      const signed = { ...body, sign_type: 'SHA512', sign: signBody(body, SIGNED_SALT) };
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { key: SIGNED_KEY, body: signed });
      expectEnvelope(answer, 200);
    });

    it('accepts the signature computed by POST /sandbox/v1/tools/sign', async () => {
      const body = createBody({ payee: SIGNED_PAYEE, currency_code: 'EUR' });
      const tool = await call(each.sandbox, 'POST', '/sandbox/v1/tools/sign', { key: SIGNED_KEY, body });
      expectEnvelope(tool, 200);
      expect(tool.body.sign).toBe(signBody(body, SIGNED_SALT));
      expect(tool.body.string_to_sign).toMatch(/&<signing_salt>$/);
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { key: SIGNED_KEY, body: { ...body, sign_type: 'SHA512', sign: tool.body.sign } });
      expectEnvelope(answer, 200);
    });

    it('renders an inline PNG data URL when the merchant asks for it', async () => {
      const merchant = await enroll(each.sandbox, { inline_qr_image: true });
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment`, { key: merchant.api_key, body: createBody({ payee: merchant.payee_id }) });
      expectEnvelope(answer, 200);
      expect(answer.body.qr_data.image).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    });
  });

  describe('status', () => {
    it('answers every field of the interface, in its order, before payment', async () => {
      const created = await createPayment(each.sandbox, { amount: 100, metadata: { k: 'v' } }, { prefix });
      const answer = await call(each.sandbox, 'GET', `${prefix}/payments/payment/${created.payment_id}`);
      expectEnvelope(answer, 200);
      expect(Object.keys(answer.body)).toEqual([
        'code', 'description', 'payment_id', 'merchant_ref_no', 'original_currency_code', 'original_amount', 'paid_currency_code', 'paid_amount',
        'product_type', 'payment_code', 'payment_status', 'payment_date', 'payee', 'payer', 'source', 'fee', 'metadata',
      ]);
      expect(answer.body).toMatchObject({
        payment_id: created.payment_id,
        payment_code: created.payment_code,
        product_type: 'QR_DYNAMIC',
        payment_status: 'P',
        payment_date: null,
        payer: null,
        source: null,
        fee: [],
        metadata: { k: 'v' },
      });
      expect(Object.keys(answer.body.payee)).toEqual(['id', 'name', 'city', 'country_code', 'mcc']);
      expect(answer.body.payee).toMatchObject({ id: DEMO_PAYEE, country_code: 'SG', mcc: '5812' });
      expect(answer.text).toContain('"original_amount":100.00,');
      expect(answer.text).toContain('"payment_date":null');
    });

    it('after payment: payment_date in seconds, payer, masked source, fee with two-decimal amounts', async () => {
      const created = await createPayment(each.sandbox, { amount: 100 }, { prefix });
      each.clock.advance(61_500);
      expectEnvelope(await control(each.sandbox, created.payment_id, 'pay', { payer: 'wallet-user-1' }), 200);
      const answer = await call(each.sandbox, 'GET', `${prefix}/payments/payment/${created.payment_id}`);
      expectEnvelope(answer, 200);
      expect(answer.body.payment_status).toBe('A');
      expect(answer.body.payment_date).toBe(Math.floor((START + 61_500) / 1000));
      expect(Number.isInteger(answer.body.payment_date)).toBe(true);
      expect(answer.body.payer).toMatchObject({ id: 'wallet-user-1' });
      expect(Object.keys(answer.body.source)).toEqual(['type', 'provider', 'account']);
      expect(answer.body.source.account).toMatch(/^\*{8}\d{4}$/);
      expect(answer.body.fee).toEqual([{ type: 'MDR', currency_code: 'SGD', amount: 0.6 }]);
      expect(answer.text).toContain('"fee":[{"type":"MDR","currency_code":"SGD","amount":0.60}]');
      expect(answer.text).toContain('"paid_amount":100.00,');
    });
  });

  describe('assign', () => {
    it('P -> W with the payer, and re-assigning in W replaces it', async () => {
      const { payment_id } = await createPayment(each.sandbox, {}, { prefix });
      const first = await call(each.sandbox, 'POST', `${prefix}/payments/payment/${payment_id}/assign`, { body: { payer: 'payer-a' } });
      expectEnvelope(first, 200);
      expect(Object.keys(first.body)).toEqual(['code', 'description']);
      expect(first.body.description).toContain('W');
      expect((await statusOf(each.sandbox, payment_id)).payer.id).toBe('payer-a');
      expectEnvelope(await call(each.sandbox, 'POST', `${prefix}/payments/payment/${payment_id}/assign`, { body: { payer: 'payer-b' } }), 200);
      const status = await statusOf(each.sandbox, payment_id);
      expect(status).toMatchObject({ payment_status: 'W', payer: { id: 'payer-b' } });
    });
  });

  describe('cancel', () => {
    it.each(['P', 'W'])('cancels a payment in %s: V, with the reason kept in the history', async (from) => {
      const { payment_id } = await createPayment(each.sandbox, from === 'W' ? { payer: 'someone' } : {}, { prefix });
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment/${payment_id}/cancel`, { body: { reason: 'customer walked away' } });
      expectEnvelope(answer, 200);
      expect(Object.keys(answer.body)).toEqual(['code', 'description']);
      expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('V');
      const events = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}/events`);
      expect(events.body.events.at(-1)).toMatchObject({ type: 'cancelled', from, to: 'V', reason: 'customer walked away', actor: 'merchant' });
    });
  });

  describe('void', () => {
    it('voids a paid, unsettled payment: V, with the reason in the history', async () => {
      const { payment_id } = await createPayment(each.sandbox, { payer: 'PAYER_PAYS' }, { prefix });
      const answer = await call(each.sandbox, 'POST', `${prefix}/payments/payment/${payment_id}/void`, { body: { reason: 'refund' } });
      expectEnvelope(answer, 200);
      expect(Object.keys(answer.body)).toEqual(['code', 'description']);
      expect((await statusOf(each.sandbox, payment_id)).payment_status).toBe('V');
      const events = await call(each.sandbox, 'GET', `/sandbox/v1/payments/${payment_id}/events`);
      expect(events.body.events.at(-1)).toMatchObject({ type: 'voided', from: 'A', to: 'V', reason: 'refund' });
    });
  });
});

describe('public API: two transitions racing on one payment', () => {
  it('exactly one of cancel and pay wins; the other sees the new state', async () => {
    const sandbox = await memorySandbox({ clock: manualClock().clock });
    try {
      for (let round = 0; round < 5; round++) {
        const { payment_id } = await createPayment(sandbox);
        const [cancel, pay] = await Promise.all([
          call(sandbox, 'POST', `/openapi/v1/payments/payment/${payment_id}/cancel`, { body: { reason: 'race' } }),
          control(sandbox, payment_id, 'pay'),
        ]);
        expect([cancel.status, pay.status].sort()).toEqual([200, 402]);
        const status = (await statusOf(sandbox, payment_id)).payment_status;
        const loser = cancel.status === 402 ? cancel : pay;
        expect(loser.body.description).toContain(`it is ${status}`);
        expect(status).toBe(cancel.status === 200 ? 'V' : 'A');
      }
    } finally {
      await sandbox.close();
    }
  });
});

describe('public API: two creates racing with one merchant_ref_no', () => {
  it('exactly one is stored; the other is a 402 carrying the winner payment_id', async () => {
    const sandbox = await memorySandbox({ clock: manualClock().clock });
    try {
      const body = createBody({ merchant_ref_no: 'race-ref' });
      const answers = await Promise.all([0, 1, 2].map(() => call(sandbox, 'POST', '/openapi/v1/payments/payment', { body })));
      const winners = answers.filter((a) => a.status === 200);
      const losers = answers.filter((a) => a.status === 402);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(2);
      for (const loser of losers) expect(loser.body.payment_id).toBe(winners[0]!.body.payment_id);
      expect((await call(sandbox, 'GET', '/sandbox/v1/payments?merchant_ref_no=race-ref')).body.total).toBe(1);
    } finally {
      await sandbox.close();
    }
  });
});
