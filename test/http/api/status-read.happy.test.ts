/** A status read: key, merchant and payment in one store call, and its answer kept per payment version on every store (SPEC 20). */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StatusTexts } from '../../../src/http/api/payments/status-texts.js';
import type { Payment } from '../../../src/domain/payment.js';
import type { Sandbox } from '../../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest } from '../../helpers.js';
import { removeTempDirs } from '../../support/files.js';
import { EACH_STORE } from '../../support/sandboxes.js';

afterAll(removeTempDirs);

describe.each(EACH_STORE)('a status read on the %s store', (_kind, make) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await make();
  });
  afterAll(() => sandbox.close());
  afterEach(() => vi.restoreAllMocks());

  async function created(): Promise<string> {
    const answer = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    return ((await answer.json()) as { payment_id: string }).payment_id;
  }

  it('reads key, merchant and payment in one store call', async () => {
    const id = await created();
    const store = sandbox.services.store;
    const keyed = vi.spyOn(store, 'keyedPayment');
    const byKey = vi.spyOn(store, 'merchantByKey');
    const payment = vi.spyOn(store, 'payment');
    const answer = await sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${id}`));
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { payment_id: string }).payment_id).toBe(id);
    expect(keyed).toHaveBeenCalledTimes(1);
    expect(byKey).not.toHaveBeenCalled();
    expect(payment).not.toHaveBeenCalled();
  });

  it('makes the answer once per payment version, and anew after a change', async () => {
    const id = await created();
    let made = 0;
    const text = StatusTexts.prototype.text;
    vi.spyOn(StatusTexts.prototype, 'text').mockImplementation(function (this: StatusTexts, p: Payment, makeText: (p: Payment) => string) {
      return text.call(this, p, (q) => (made++, makeText(q)));
    });
    const read = async () => (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).text();
    const first = await read();
    expect(await read()).toBe(first);
    expect(await read()).toBe(first);
    expect(made).toBe(1);
    await sandbox.control.pickup(DEMO_KEY, id, 'poller');
    const after = JSON.parse(await read()) as { payment_status: string };
    expect(after.payment_status).toBe('W');
    expect(made).toBe(2);
  });

  it("answers 404 for another merchant's payment and 401 for an unknown key, as before", async () => {
    const id = await created();
    const other = await sandbox.control.enroll();
    const theirs = await sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${id}`, undefined, { 'Service-Api-Key': other.apiKey }));
    const body = (await theirs.json()) as { code: string; description: string };
    expect(theirs.status).toBe(404);
    expect(body.description).toContain('No payment with payment_id');
    const unknown = await sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${id}`, undefined, { 'Service-Api-Key': 'sk_sandbox_nobody' }));
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { description: string }).description).toContain('not recognised');
  });

  it('reads the payment again after a latency fault, so a change made meanwhile shows', async () => {
    const id = await created();
    const slow = sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${id}`, undefined, { 'Sandbox-Fault': 'latency=300' }));
    await new Promise((r) => setTimeout(r, 50));
    await sandbox.control.pickup(DEMO_KEY, id, 'meanwhile');
    expect(((await (await slow).json()) as { payment_status: string }).payment_status).toBe('W');
  });

  it('reads a percent-encoded id through the ordinary path', async () => {
    const id = await created();
    const escaped = `%${id.charCodeAt(0).toString(16)}${id.slice(1)}`;
    const answer = await sandbox.fetch(jsonRequest('GET', `/v1/payments/payment/${escaped}`));
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { payment_id: string }).payment_id).toBe(id);
  });
});

describe('the kept status answers', () => {
  const p = { id: 'pay_1', version: 3 } as Payment;

  it('hit by id and version (a fresh object per read)', () => {
    const texts = new StatusTexts();
    expect(texts.text(p, () => 'one')).toBe('one');
    expect(texts.text({ ...p }, () => 'two')).toBe('one');
    expect(texts.text({ ...p, version: 4 }, () => 'three')).toBe('three');
  });

});
