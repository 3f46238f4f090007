/** SPEC 16: the unhappy paths of Idempotency-Key; each changes nothing. */
import { describe, expect, it } from 'vitest';
import { DEMO_PAYEE, call, createBody, expectEnvelope, sandboxPerTest } from '../support/http.js';

describe('Idempotency-Key refusals', () => {
  const each = sandboxPerTest();
  const count = async () => (await call(each.sandbox, 'GET', '/sandbox/v1/payments')).body.total as number;

  it('the same key with another body is a 400 that names the key, and changes nothing', async () => {
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Idempotency-Key': 'k-1' } });
    const before = await count();
    const other = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Idempotency-Key': 'k-1' } });
    expectEnvelope(other, 400);
    expect(other.body.description).toContain('"k-1"');
    expect(other.body.description).toMatch(/another request/);
    expect(await count()).toBe(before);
  });

  it('the same key on another route is a 400 too', async () => {
    const created = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Idempotency-Key': 'k-2' } });
    const cancel = await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${created.body.payment_id}/cancel`, { body: { reason: 'x' }, headers: { 'Idempotency-Key': 'k-2' } });
    expectEnvelope(cancel, 400);
    expect((await call(each.sandbox, 'GET', `/openapi/v1/payments/payment/${created.body.payment_id}`)).body.payment_status).toBe('P');
  });

  it('a repeat while the first is still running is a 402 that says to retry later', async () => {
    const merchant = await each.sandbox.services.merchants.authenticate('sk_sandbox_demo_merchant_key');
    const body = createBody();
    // A request holding the key, as a concurrent one would between its claim and its answer.
    const fingerprint = `POST /openapi/v1/payments/payment ${JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b))))}`;
    await each.sandbox.services.idempotency.begin(merchant.payeeId, 'k-3', fingerprint, each.sandbox.services.merchants.now(merchant), each.sandbox.services.merchants.realNow());
    const repeat = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'k-3' } });
    expectEnvelope(repeat, 402);
    expect(repeat.body.description).toMatch(/still in progress: retry later/);
    expect(await count()).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a control character', 'a\tb'],
  ])('a key that is %s is a 400 and changes nothing', async (_name, key) => {
    const answer = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody({ payee: DEMO_PAYEE }), headers: { 'Idempotency-Key': key } });
    expectEnvelope(answer, 400);
    expect(answer.body.description).toMatch(/Idempotency-Key must be 1 to 255 printable ASCII characters/);
    expect(await count()).toBe(0);
  });
});

describe('Idempotency-Key on requests no route serves', () => {
  const each = sandboxPerTest();

  it('an unknown path answers 404 every time: the key is not used up by it', async () => {
    for (let i = 0; i < 2; i++) {
      const answer = await call(each.sandbox, 'POST', '/sandbox/v1/nothing', { body: {}, headers: { 'Idempotency-Key': 'u1' } });
      expectEnvelope(answer, 404);
      expect(answer.body.description).toMatch(/^No route POST \/sandbox\/v1\/nothing/);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
  });

  it('a key used on a real route, then sent to a mistyped path, answers 404 "No route", not 400', async () => {
    const body = createBody();
    expectEnvelope(await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'u2' } }), 200);
    const typo = await call(each.sandbox, 'POST', '/openapi/v1/payments/paymnet', { body, headers: { 'Idempotency-Key': 'u2' } });
    expectEnvelope(typo, 404);
    expect(typo.body.description).toMatch(/^No route POST \/openapi\/v1\/payments\/paymnet/);
    // The key still belongs to the create: its repeat replays it.
    const repeat = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: { 'Idempotency-Key': 'u2' } });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a POST to a path that serves only other methods answers 405 every time, and leaves the key free', async () => {
    const id = (await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() })).body.payment_id as string;
    for (let i = 0; i < 2; i++) {
      const answer = await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${id}`, { body: {}, headers: { 'Idempotency-Key': 'u3' } });
      expectEnvelope(answer, 405);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    const created = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Idempotency-Key': 'u3' } });
    expectEnvelope(created, 200);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });
});
