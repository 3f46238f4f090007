/** Issue 10 defect 9: fault rules that match but fire nothing must not turn reads into writes of the merchant. */
import { describe, expect, it, vi } from 'vitest';
import { call, createBody, sandboxPerTest } from '../support/http.js';

describe('fault rules on reads', () => {
  const each = sandboxPerTest();

  it('50 rules that never fire: 20 status reads write nothing, and the matches are still counted', async () => {
    const id = (await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() })).body.payment_id as string;
    for (let i = 0; i < 50; i++) {
      const added = await call(each.sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=500', probability: 0 } });
      expect(added.status).toBe(200);
    }
    const writes = vi.spyOn(each.sandbox.services.store, 'updateMerchant');
    for (let i = 0; i < 20; i++) expect((await call(each.sandbox, 'GET', `/openapi/v1/payments/payment/${id}`)).status).toBe(200);
    expect(writes).not.toHaveBeenCalled();
    const rules = (await call(each.sandbox, 'GET', '/sandbox/v1/faults')).body.rules as { matched: number; fired: number }[];
    expect(rules).toHaveLength(50);
    for (const rule of rules) expect(rule).toMatchObject({ matched: 20, fired: 0 });
  });

  it('a rule that fires is written at once, with the matches counted before it', async () => {
    const id = (await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() })).body.payment_id as string;
    await call(each.sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=503', probability: 0 } });
    await call(each.sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'GET', path: '/openapi/v1/payments/payment/*' }, fault: 'error=500', times: 1 } });
    const writes = vi.spyOn(each.sandbox.services.store, 'updateMerchant');
    expect((await call(each.sandbox, 'GET', `/openapi/v1/payments/payment/${id}`)).status).toBe(500);
    expect(writes).toHaveBeenCalledTimes(1);
    const stored = (await each.sandbox.services.store.merchant('DEMO-MERCHANT-1'))!.faultRules!;
    expect(stored.map((r) => [r.matched, r.fired, r.timesLeft])).toEqual([[1, 0, null], [1, 1, 0]]);
  });
});
