/**
 * The duplicate drill is reproducible from the sandbox's seed (STYLE: every source of chance is
 * injected per sandbox): two sandboxes with one seed and the same calls duplicate the same
 * deliveries, although their payee, payment and event ids differ; another seed duplicates others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDuplicated } from '../../src/domain/webhook-drills.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';
import { receiver } from '../support/webhook-receiver.js';

interface DeliveryView {
  event_id: string;
  event_type: string;
  payment_id: string;
}

describe('duplicate drill, drawn from the seed', () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(() => hook.close());

  /** In a fresh sandbox of `seed`: 20 creates with duplicate 0.5; answers the merchant_ref_nos whose created event went twice. */
  async function duplicatedRefs(seed: number): Promise<string[]> {
    const sandbox = await memorySandbox({ seed, config: { webhookRetryDelaysMs: [0] } });
    try {
      const merchant = await sandbox.control.enroll({ name: 'Seeded Shop' });
      const headers = { 'Service-Api-Key': merchant.apiKey };
      const set = await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: hook.url, faults: { duplicate: 0.5 } }, headers));
      expect(set.status).toBe(200);
      const refOf = new Map<string, string>();
      for (let i = 1; i <= 20; i++) {
        const ref = `order-${i}`;
        const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee: merchant.payeeId, merchant_ref_no: ref }), headers));
        expect(res.status).toBe(200);
        refOf.set(((await res.json()) as { payment_id: string }).payment_id, ref);
      }
      const res = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook/deliveries?limit=100', undefined, headers));
      const { deliveries } = (await res.json()) as { deliveries: DeliveryView[] };
      const sends = new Map<string, number>();
      for (const d of deliveries) sends.set(d.event_id, (sends.get(d.event_id) ?? 0) + 1);
      const twice = deliveries.filter((d) => d.event_type === 'payment.created' && sends.get(d.event_id) === 2);
      return [...new Set(twice.map((d) => refOf.get(d.payment_id)!))].sort();
    } finally {
      await sandbox.close();
    }
  }

  it('one seed and the same calls: the same merchant_ref_nos duplicated; another seed: others', async () => {
    const first = await duplicatedRefs(7);
    const again = await duplicatedRefs(7);
    const other = await duplicatedRefs(8);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(20);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('draws from the seed, the merchant_ref_no, the event and its version only', () => {
    const event = { merchantRefNo: 'order-1', version: 1, type: 'created' };
    expect(isDuplicated(0, 7, event)).toBe(false);
    expect(isDuplicated(1, 7, event)).toBe(true);
    const draws = (seed: number) => Array.from({ length: 40 }, (_, i) => isDuplicated(0.5, seed, { ...event, merchantRefNo: `order-${i}` }));
    expect(draws(7)).toEqual(draws(7));
    expect(draws(7)).not.toEqual(draws(8));
    // Each event of a payment is drawn on its own: a second payer_assigned is not bound to the first.
    const versions = Array.from({ length: 40 }, (_, v) => isDuplicated(0.5, 7, { merchantRefNo: 'order-1', version: v + 2, type: 'payer_assigned' }));
    expect(new Set(versions).size).toBe(2);
  });
});
