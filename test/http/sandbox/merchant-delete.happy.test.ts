/**
 * DELETE /sandbox/v1/merchant (issue 10): a merchant deletes itself with its own key, and
 * everything it held goes with it, for good. With SANDBOX_TEST_STORE=postgres these run on the
 * shared store (the restart: a second sandbox on the same database).
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/index.js';
import type { Sandbox, SandboxOptions } from '../../../src/index.js';
import { freshDatabase } from '../../support/databases.js';
import { removeTempDirs, tempDir } from '../../support/files.js';
import { call, createPayment, expectEnvelope, listeningSandbox, manualClock, memorySandbox } from '../../support/http.js';
import { receiver } from '../../support/webhook-receiver.js';
import { DEMO_KEY, DEMO_PAYEE, createBody } from '../../helpers.js';

afterAll(removeTempDirs);

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function enroll(s: Sandbox, name = 'Closing Shop'): Promise<{ key: string; payee: string }> {
  const answer = await call(s, 'POST', '/sandbox/v1/merchants', { key: null, body: { name } });
  expectEnvelope(answer, 200);
  return { key: answer.body.api_key, payee: answer.body.payee_id };
}

/** Options of a sandbox whose data outlives it: a file, or (SANDBOX_TEST_STORE=postgres) a database. */
async function durable(): Promise<SandboxOptions> {
  if (process.env.SANDBOX_TEST_STORE === 'postgres') return { store: 'postgres', url: await freshDatabase(), scheduler: false };
  return { store: 'file', dataFile: path.join(tempDir('payreq-delete-'), 'sandbox.json'), scheduler: false };
}

describe('DELETE /sandbox/v1/merchant', () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(() => hook.close());

  it('deletes the merchant with its payments, journal, deliveries, fault rules, idempotency keys and clock, and counts them', async () => {
    sandbox = await memorySandbox({ clock: manualClock().clock, config: { webhookRetryDelaysMs: [0] } });
    const { key, payee } = await enroll(sandbox);
    expectEnvelope(await call(sandbox, 'PUT', '/sandbox/v1/webhook', { key, body: { url: hook.url } }), 200);
    const paid = await createPayment(sandbox, { payee, payer: 'PAYER_PAYS' }, { key });
    await createPayment(sandbox, { payee }, { key });
    const idempotent = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key, body: createBody({ payee, merchant_ref_no: 'once-only' }), headers: { 'Idempotency-Key': 'op-1' } });
    expectEnvelope(idempotent, 200);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/faults', { key, body: { match: { method: 'GET', path: '/v1/never-called' }, fault: 'latency=1' } }), 200);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { key, body: { seconds: 3600 } }), 200);
    const deliveries = (await call(sandbox, 'GET', '/sandbox/v1/webhook/deliveries?limit=100', { key })).body.deliveries.length as number;
    expect(deliveries).toBeGreaterThan(0);
    const journal = (await call(sandbox, 'GET', '/sandbox/v1/requests?limit=500', { key })).body.requests.length as number;
    const { store } = sandbox.services;
    expect((await store.readiness.list(payee)).length).toBeGreaterThan(0);

    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key });
    expectEnvelope(answer, 200);
    expect(answer.body).toEqual({
      code: 200,
      description: expect.stringContaining(`Merchant Closing Shop (payee ${payee}) is deleted with 3 payments, ${journal + 1} journal entries, ${deliveries} webhook deliveries, 1 fault rule, its idempotency keys, readiness evidence and sandbox clock, and 1 API key`),
      payee_id: payee,
      // The journal read above is itself journaled.
      erased: { payments: 3, journal_entries: journal + 1, deliveries, fault_rules: 1, api_keys: 1 },
    });
    expect(answer.body.description).toContain('the key now answers 401');
    expect(answer.text).not.toContain(key);

    expect(await store.merchant(payee)).toBeUndefined();
    expect(await store.paymentByToken(paid.payment_token)).toBeUndefined();
    expect(await store.journal.list(payee, { limit: 500 })).toEqual([]);
    expect(await store.deliveries.list(payee, 500)).toEqual([]);
    expect(await store.readiness.list(payee)).toEqual([]);
    // The key's first answer is not kept any more: the same key is claimed afresh.
    expect((await store.idempotency.begin(payee, 'op-1', 'any', Date.now(), Date.now())).kind).toBe('started');
    expect(await store.merchantIds()).not.toContain(payee);
  });

  it('a new enrolment afterwards starts empty, and the enrolment cap counts the deleted merchant no more', async () => {
    sandbox = await memorySandbox({ config: { maxMerchants: 3 } });
    const first = await enroll(sandbox);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/merchants', { key: null, body: {} }), 402);
    await createPayment(sandbox, { payee: first.payee }, { key: first.key });
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: first.key }), 200);

    const second = await enroll(sandbox, 'Next Shop');
    expect(second.payee).not.toBe(first.payee);
    const list = await call(sandbox, 'GET', '/sandbox/v1/payments', { key: second.key });
    expect(list.body.total).toBe(0);
    // Only the list just made: nothing of the deleted merchant shows.
    expect((await call(sandbox, 'GET', '/sandbox/v1/requests', { key: second.key })).body.requests.map((r: { path: string }) => r.path)).toEqual(['/sandbox/v1/payments']);
  });

  it('the demo merchant may delete itself; the next start enrolls it again, empty', async () => {
    const options = await durable();
    sandbox = await createSandbox(options);
    await createPayment(sandbox);
    const answer = await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: DEMO_KEY });
    expectEnvelope(answer, 200);
    expect(answer.body.erased.payments).toBe(1);
    expect(answer.body.description).toContain('The next start of the sandbox enrolls this demo merchant again, empty.');
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/payments', { key: DEMO_KEY }), 401);
    await sandbox.close();

    sandbox = await createSandbox(options);
    const list = await call(sandbox, 'GET', '/sandbox/v1/payments', { key: DEMO_KEY });
    expectEnvelope(list, 200);
    expect(list.body.total).toBe(0);
    expect((await sandbox.services.store.merchant(DEMO_PAYEE))?.clockOffsetMs).toBe(0);
  });

  it('a restart does not bring the deleted merchant back, nor its payments', async () => {
    const options = await durable();
    sandbox = await createSandbox(options);
    const { key, payee } = await enroll(sandbox);
    const p = await createPayment(sandbox, { payee }, { key });
    const kept = await createPayment(sandbox);
    expectEnvelope(await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key }), 200);
    await sandbox.close();

    sandbox = await createSandbox(options);
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/merchant', { key }), 401);
    expect(await sandbox.services.store.merchant(payee)).toBeUndefined();
    expect((await call(sandbox, 'GET', `/sandbox/pay/${p.payment_token}`, { key: null })).status).toBe(404);
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${kept.payment_id}`), 200);
  });

  describe('through a real listening server', () => {
    const live = listeningSandbox();

    it('answers 200 over HTTP, and the key is refused from then on', async () => {
      const enrolled = await live.sandbox.control.enroll({ name: 'Wire Shop' });
      const headers = { 'Service-Api-Key': enrolled.apiKey };
      const created = await fetch(`${live.server.url}/openapi/v1/payments/payment`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(createBody({ payee: enrolled.payeeId })),
      });
      expect(created.status).toBe(200);

      const deleted = await fetch(`${live.server.url}/sandbox/v1/merchant`, { method: 'DELETE', headers });
      expect(deleted.status).toBe(200);
      expect(deleted.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await deleted.json()).toMatchObject({ code: 200, payee_id: enrolled.payeeId, erased: { payments: 1, api_keys: 1 } });

      const after = await fetch(`${live.server.url}/sandbox/v1/merchant`, { headers });
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ code: 401 });
    });
  });
});
