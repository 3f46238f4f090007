// The "complete vitest file you can paste" of docs/library.md, verbatim: it must run as pasted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from 'payreq-sandbox';
import type { EnrolledMerchant, Sandbox } from 'payreq-sandbox';
import { failureSummary, replay, SHIPPED_SCENARIOS } from 'payreq-sandbox/scenarios';

describe('checkout against the payment request sandbox', () => {
  let sandbox: Sandbox;
  let merchant: EnrolledMerchant;
  let baseUrl: string;

  beforeAll(async () => {
    sandbox = await createSandbox({ store: 'memory' });
    merchant = await sandbox.control.enroll({ name: 'Corner Shop' });
    baseUrl = (await sandbox.listen()).url; // a real port for the HTTP client under test
  });
  afterAll(() => sandbox.close());

  // Stands in for your own API client: all it needs is the base URL and the key.
  async function call(method: string, path: string, body?: object) {
    const response = await fetch(`${baseUrl}/openapi/v1${path}`, {
      method,
      headers: { 'Service-Api-Key': merchant.apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, any>;
  }

  async function createPayment(amount: number): Promise<string> {
    const created = await call('POST', '/payments/payment', {
      payee: merchant.payeeId,
      product_type: 'QR_DYNAMIC',
      merchant_ref_no: `order-${crypto.randomUUID()}`,
      amount,
    });
    expect(created.code).toBe(200);
    return created.payment_id;
  }

  it('the payer pays: the status query shows A', async () => {
    const id = await createPayment(25.5);
    await sandbox.control.pay(merchant.apiKey, id);
    expect(await call('GET', `/payments/payment/${id}`)).toMatchObject({ code: 200, payment_status: 'A', paid_amount: 25.5 });
  });

  it('the QR expires once the sandbox clock passes its time-to-live', async () => {
    const id = await createPayment(10);
    await sandbox.control.advanceClock(merchant.apiKey, 15 * 60 + 1);
    expect(await call('GET', `/payments/payment/${id}`)).toMatchObject({ payment_status: 'E' });
  });

  it('cancel after payment is refused with 402', async () => {
    const id = await createPayment(10);
    await sandbox.control.pay(merchant.apiKey, id);
    const refused = await call('POST', `/payments/payment/${id}/cancel`, { reason: 'customer left' });
    expect(refused).toMatchObject({ code: 402, description: expect.stringContaining('use void') });
  });

  it('replays the shipped scenario files (and, beside them, your own) against the same sandbox', async () => {
    const report = await replay([SHIPPED_SCENARIOS], { sandbox });
    expect(report.files.filter((f) => f.status === 'failed').map(failureSummary)).toEqual([]);
  });
});
