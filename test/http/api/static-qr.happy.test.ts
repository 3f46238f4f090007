/** Point of initiation (EMV tag 01) by product type, as the create answer carries it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEmvPayload, initiationOf, toEmvPayload } from '../../../src/domain/emv.js';
import type { Sandbox } from '../../../src/index.js';
import { call, createPayment, quietSandbox } from '../../support/http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await quietSandbox();
});
afterAll(() => sandbox.close());

const tag01 = (payload: string) => decodeEmvPayload(payload).tags.find((t) => t.tag === '01')?.value;

describe('static and dynamic QR payloads', () => {
  it.each([
    ['QR_STATIC', '11'],
    ['QR_DYNAMIC', '12'],
    ['IN_APP', '12'],
  ])('%s gives point of initiation %s in tag 01, with a valid CRC, in the create answer and the control view', async (productType, code) => {
    const created = await createPayment(sandbox, { product_type: productType });
    const payload = created.qr_data.payload as string;
    expect(payload.slice(0, 12)).toBe(`0002010102${code}`);
    expect(tag01(payload)).toBe(code);
    expect(decodeEmvPayload(payload).valid).toBe(true);
    const view = await call(sandbox, 'GET', `/sandbox/v1/payments/${created.payment_id}`);
    expect(view.body.payment.qr_data.payload).toBe(payload);
  });

  it('the domain maps only QR_STATIC to static, and defaults to dynamic', () => {
    expect(initiationOf('QR_STATIC')).toBe('static');
    expect(initiationOf('QR_DYNAMIC')).toBe('dynamic');
    expect(initiationOf('ANYTHING')).toBe('dynamic');
    const fields = { payeeId: 'P', mcc: '5812', currencyNumeric: '702', amount: '1.00', countryCode: 'SG', merchantName: 'A', merchantCity: 'B', paymentCode: 'C' };
    expect(tag01(toEmvPayload(fields))).toBe('12');
    expect(tag01(toEmvPayload({ ...fields, initiation: 'static' }))).toBe('11');
  });
});
