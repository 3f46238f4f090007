/** Bytes of request bodies per merchant per second (SPEC 18): over it, 429 with Retry-After, nothing read further or done, other merchants unaffected. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/serve-command.js';
import type { Sandbox } from '../../src/index.js';
import { BodyBudget } from '../../src/services/body-budget.js';
import { createBody, DEMO_KEY, DEMO_PAYEE, jsonRequest, memorySandbox, uniqueRef } from '../helpers.js';
import { storedPayments } from '../support/payment-counts.js';

describe('BodyBudget', () => {
  it('holds one second of bytes, refills with time, and says how long to wait', () => {
    let now = 0;
    const budget = new BodyBudget(1000, () => now);
    expect(budget.take('A', 600)).toBe(0);
    expect(budget.take('A', 600)).toBe(1);
    expect(budget.take('B', 1000)).toBe(0);
    now += 500;
    expect(budget.take('A', 600)).toBe(0);
    expect(budget.take('A', 3000)).toBe(3);
    expect(new BodyBudget(0, () => now).take('A', 1e9)).toBe(0);
  });

  it('is 1 MiB a second on the server unless SANDBOX_MERCHANT_BODY_KB_PER_SECOND says otherwise, and refuses a bad value', () => {
    expect(configFromEnv({}).bodyBytesPerSecond).toBe(1024 * 1024);
    expect(configFromEnv({ SANDBOX_MERCHANT_BODY_KB_PER_SECOND: '0' }).bodyBytesPerSecond).toBe(0);
    expect(configFromEnv({ SANDBOX_MERCHANT_BODY_KB_PER_SECOND: '64' }).bodyBytesPerSecond).toBe(65536);
    expect(() => configFromEnv({ SANDBOX_MERCHANT_BODY_KB_PER_SECOND: '-1' })).toThrow(/SANDBOX_MERCHANT_BODY_KB_PER_SECOND must be a whole number of KiB/);
  });
});

describe('a merchant over its body budget', () => {
  let sandbox: Sandbox;
  const clock = { now: 1_800_000_000_000 };
  beforeAll(async () => {
    sandbox = await memorySandbox({ clock: () => clock.now, config: { bodyBytesPerSecond: 64 * 1024 } });
  });
  afterAll(() => sandbox.close());

  const bigCreate = () => createBody({ merchant_ref_no: uniqueRef('big'), metadata: { note: 'x'.repeat(7_000) } });

  it('gets 429 with Retry-After once its second of bytes is spent; nothing is created; another merchant is served', async () => {
    const other = await sandbox.control.enroll({ name: 'Quiet Shop' });
    let refused: Response | undefined;
    let sent = 0;
    for (; sent < 20 && !refused; sent++) {
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', bigCreate()));
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused).toBeDefined();
    expect(sent).toBeGreaterThan(5);
    expect(refused!.headers.get('retry-after')).toBe('1');
    const body = (await refused!.json()) as { code: number; description: string };
    expect(body.code).toBe(429);
    expect(body.description).toMatch(/more than 64 KiB of request bodies in the last second .*SANDBOX_MERCHANT_BODY_KB_PER_SECOND.*nothing was done; retry after 1 s/);
    const before = await storedPayments(sandbox.services.store, DEMO_PAYEE);
    expect((await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', bigCreate()))).status).toBe(429);
    expect(await storedPayments(sandbox.services.store, DEMO_PAYEE)).toBe(before);
    // Reads carry no body and are not charged; another merchant has its own budget.
    expect((await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments?limit=1'))).status).toBe(200);
    const theirs = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', { ...bigCreate(), payee: other.payeeId }, { 'Service-Api-Key': other.apiKey }));
    expect(theirs.status).toBe(200);
    // A second later the budget is back.
    clock.now += 1000;
    expect((await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', bigCreate()))).status).toBe(200);
  });

  it('an Idempotency-Key sent with a refused body is not used up: the retry runs', async () => {
    clock.now += 5000;
    const body = bigCreate();
    let refusedOnce = false;
    for (let i = 0; i < 20 && !refusedOnce; i++) {
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', i === 19 ? body : bigCreate(), { 'Idempotency-Key': `k-${i}` }));
      if (res.status === 429) refusedOnce = true;
    }
    expect(refusedOnce).toBe(true);
    const keyed = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Idempotency-Key': 'retry-me' }));
    expect(keyed.status).toBe(429);
    clock.now += 1000;
    const again = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', body, { 'Idempotency-Key': 'retry-me' }));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
});
