/** The library's control helpers speak the API's field names, and a typo is an error, not a default. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await memorySandbox();
});
afterAll(() => sandbox.close());

async function newPayment(): Promise<string> {
  const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
  return ((await res.json()) as { payment_id: string }).payment_id;
}

async function statusOf(id: string): Promise<Record<string, unknown>> {
  return (await (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).json()) as Record<string, unknown>;
}

describe('control helpers take the HTTP bodies\' field names', () => {
  it('enroll takes home_currency and the other enrolment fields', async () => {
    const m = await sandbox.control.enroll({ name: 'Snake Shop', home_currency: 'USD', require_signature: true, qr_ttl_seconds: 60 });
    expect(m.homeCurrency).toBe('USD');
    const own = (await (await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/merchant', { headers: { 'Service-Api-Key': m.apiKey } }))).json()) as Record<string, unknown>;
    expect(own).toMatchObject({ home_currency: 'USD', require_signature: true, qr_ttl_seconds: 60, name: 'Snake Shop' });
  });

  it('pay takes paid_currency_code', async () => {
    const id = await newPayment();
    await sandbox.control.pay(DEMO_KEY, id, { payer: 'Pat', paid_currency_code: 'USD' });
    expect(await statusOf(id)).toMatchObject({ payment_status: 'A', paid_currency_code: 'USD' });
  });

  it('pickup and fail take the value alone or the body', async () => {
    const a = await newPayment();
    await sandbox.control.pickup(DEMO_KEY, a, { payer: 'Quinn' });
    expect(await statusOf(a)).toMatchObject({ payment_status: 'W' });
    await sandbox.control.fail(DEMO_KEY, a, { reason: 'declined' });
    expect(await statusOf(a)).toMatchObject({ payment_status: 'F' });
    const b = await newPayment();
    await sandbox.control.pickup(DEMO_KEY, b, 'Robin');
    await sandbox.control.fail(DEMO_KEY, b, 'card lost');
    expect(await statusOf(b)).toMatchObject({ payment_status: 'F' });
  });
});

describe('a field the API does not have is refused, naming it and the field meant', () => {
  it('enroll({ homeCurrency }) throws instead of enrolling in SGD', async () => {
    const before = await sandbox.services.store.merchantIds();
    await expect(sandbox.control.enroll({ homeCurrency: 'USD' } as never)).rejects.toThrow('control.enroll: unknown field "homeCurrency" (did you mean "home_currency"?). It takes the API\'s field names:');
    expect(await sandbox.services.store.merchantIds()).toEqual(before);
  });

  it('pay({ paidCurrency }) throws and the payment does not change', async () => {
    const id = await newPayment();
    await expect(sandbox.control.pay(DEMO_KEY, id, { paidCurrency: 'USD' } as never)).rejects.toThrow(/control\.pay: .*paidCurrency.*paid_currency_code/);
    expect(await statusOf(id)).toMatchObject({ payment_status: 'P' });
  });

  it('a bad value is refused with the route\'s own message', async () => {
    await expect(sandbox.control.enroll({ home_currency: 'usd' })).rejects.toThrow(/control\.enroll: .*home_currency/);
    const id = await newPayment();
    await expect(sandbox.control.pay(DEMO_KEY, id, { paid_currency_code: 'XXX' })).rejects.toThrow(/control\.pay: .*paid_currency_code/);
    expect(await statusOf(id)).toMatchObject({ payment_status: 'P' });
  });

  it('a field whose own name holds the word "ignored" is named as sent, and is not said to be ignored', async () => {
    const before = await sandbox.services.store.merchantIds();
    const refused = sandbox.control.enroll({ 'name ignored': 'Shop' } as never);
    await expect(refused).rejects.toThrow(/^control\.enroll: unknown field "name ignored"\. It takes the API's field names:/);
    expect(await sandbox.services.store.merchantIds()).toEqual(before);
  });

  it('a body that is not an object is refused', async () => {
    await expect(sandbox.control.enroll('Shop' as never)).rejects.toThrow(/control\.enroll takes an object with the API's fields \(name, city, home_currency/);
  });
});
