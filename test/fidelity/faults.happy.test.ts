import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../helpers.js';
import { listeningSandbox } from '../support/http.js';

async function countByRef(sandbox: Sandbox, ref: string): Promise<number> {
  const res = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`));
  return ((await res.json()) as { total: number }).total;
}

async function paymentIdByRef(sandbox: Sandbox, ref: string): Promise<string> {
  const res = await sandbox.fetch(jsonRequest('GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`));
  return ((await res.json()) as { payments: { payment_id: string }[] }).payments[0]!.payment_id;
}

describe('Sandbox-Fault header, in-process', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { timeoutHoldMs: 200 } });
  });
  afterAll(() => sandbox.close());

  it('error=<status> answers that status and commits nothing', async () => {
    const body = createBody();
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': 'error=503' }));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 503, description: expect.stringMatching(/nothing was committed/) });
    expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(0);
  });

  it('error-after-commit=<status> answers that status but the payment exists', async () => {
    const body = createBody();
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': 'error-after-commit=500' }));
    expect(res.status).toBe(500);
    expect(((await res.json()) as { description: string }).description).toMatch(/WAS committed/);
    expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(1);
  });

  it('error-after-commit on cancel: the cancel took effect', async () => {
    const body = createBody();
    await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body));
    const id = await paymentIdByRef(sandbox, body.merchant_ref_no as string);
    const res = await sandbox.fetch(jsonRequest('POST', `/openapi/v1/payments/payment/${id}/cancel`, { reason: 'r' }, { 'Sandbox-Fault': 'error-after-commit=502' }));
    expect(res.status).toBe(502);
    const status = (await (await sandbox.fetch(jsonRequest('GET', `/openapi/v1/payments/payment/${id}`))).json()) as { payment_status: string };
    expect(status.payment_status).toBe('V');
  });

  it('latency=<ms> delays the answer and still commits', async () => {
    const body = createBody();
    const started = Date.now();
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': 'latency=150' }));
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(1);
  });

  it('timeout holds the answer until the cap, then 504, and the payment exists', async () => {
    const body = createBody();
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': 'timeout' }));
    expect(res.status).toBe(504);
    expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(1);
  });

  it('drop rejects the in-process fetch like a lost connection, and the payment exists', async () => {
    const body = createBody();
    await expect(sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Sandbox-Fault': 'drop' }))).rejects.toThrow(/dropped/);
    expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(1);
  });

  it('a fault on a request that fails validation changes nothing and keeps the real error', async () => {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 'ten' }), { 'Sandbox-Fault': 'error-after-commit=500' }));
    expect(res.status).toBe(400);
  });

  it('magic amounts 900.01 and 900.02 answer 500 and 503 with nothing committed', async () => {
    for (const [amount, status] of [
      [900.01, 500],
      [900.02, 503],
    ] as const) {
      const body = createBody({ amount });
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body));
      expect(res.status).toBe(status);
      // 503 carries Retry-After as an injected error=503 does; 500 does not.
      expect(res.headers.get('retry-after')).toBe(status === 503 ? '1' : null);
      expect(await countByRef(sandbox, body.merchant_ref_no as string)).toBe(0);
    }
  });

  it('magic amount 900.04 drops after commit; 900.03 times out after commit', async () => {
    const dropped = createBody({ amount: 900.04 });
    await expect(sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', dropped))).rejects.toThrow();
    expect(await countByRef(sandbox, dropped.merchant_ref_no as string)).toBe(1);
    const held = createBody({ amount: 900.03 });
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', held));
    expect(res.status).toBe(504);
    expect(await countByRef(sandbox, held.merchant_ref_no as string)).toBe(1);
  });
});

describe('timeout and drop over a real connection', () => {
  const live = listeningSandbox();

  function post(body: unknown, fault: string, timeoutMs: number) {
    return fetch(`${live.server.url}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Sandbox-Fault': fault },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  }

  it('timeout: the client gives up, then the status query shows the payment was created', async () => {
    const body = createBody();
    await expect(post(body, 'timeout', 300)).rejects.toThrow(/timeout|aborted/i);
    const list = await fetch(`${live.server.url}/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    const page = (await list.json()) as { total: number; payments: { payment_id: string }[] };
    expect(page.total).toBe(1);
    const status = await fetch(`${live.server.url}/openapi/v1/payments/payment/${page.payments[0]!.payment_id}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    expect(((await status.json()) as { payment_status: string }).payment_status).toBe('P');
  });

  it('drop: the socket closes without a response, the payment exists, and the server keeps serving', async () => {
    const body = createBody();
    await expect(post(body, 'drop', 5000)).rejects.toThrow(/fetch failed|socket|closed/i);
    const list = await fetch(`${live.server.url}/sandbox/v1/payments?merchant_ref_no=${body.merchant_ref_no as string}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    expect(((await list.json()) as { total: number }).total).toBe(1);
    const health = await fetch(`${live.server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
