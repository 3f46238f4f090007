import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, jsonRequest, memorySandbox } from '../helpers.js';

describe('per-merchant rate limit', () => {
  let sandbox: Sandbox;
  // The limiter reads the sandbox's injected clock: the test moves it instead of sleeping.
  let now = Date.UTC(2026, 0, 5, 9, 0, 0, 0);
  beforeAll(async () => {
    sandbox = await memorySandbox({ clock: () => now });
  });
  afterAll(() => sandbox.close());

  it('answers 429 in the envelope with Retry-After past the limit, and commits nothing', async () => {
    const enrolled = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/merchants', { rate_limit_per_second: 2 }));
    const { api_key: key, payee_id: payee, rate_limit_per_second } = (await enrolled.json()) as { api_key: string; payee_id: string; rate_limit_per_second: number };
    expect(rate_limit_per_second).toBe(2);
    const headers = { 'Service-Api-Key': key };
    const statuses: number[] = [];
    let limited: Response | undefined;
    // A sliding second: of 6 requests at one moment, 2 pass and the others are over the limit.
    for (let i = 0; i < 6; i++) {
      const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ payee, merchant_ref_no: `rl-${i}` }), headers));
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(limited).toBeDefined();
    expect(limited!.headers.get('Retry-After')).toBe('1');
    const json = (await limited!.json()) as { code: number; description: string };
    expect(json.code).toBe(429);
    expect(json.description).toMatch(/2 requests per second/);
    const refused = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments?limit=100', undefined, headers));
    expect(refused.status).toBe(429);
    now += 1000;
    const list = await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/payments?limit=100', undefined, headers));
    expect(((await list.json()) as { total: number }).total).toBe(statuses.filter((s) => s === 200).length);
  });

  it('the second slides: two requests late in one second leave no room early in the next, and room a second after them', async () => {
    const enrolled = await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/merchants', { rate_limit_per_second: 2 }));
    const headers = { 'Service-Api-Key': ((await enrolled.json()) as { api_key: string }).api_key };
    const clock = () => sandbox.fetch(jsonRequest('GET', '/sandbox/v1/clock', undefined, headers));
    const second = Math.ceil(now / 1000) * 1000 + 5_000;
    now = second + 900;
    expect((await clock()).status).toBe(200);
    now = second + 950;
    expect((await clock()).status).toBe(200);
    // A fixed window would start afresh at the boundary; a sliding one still holds both.
    now = second + 1_100;
    const limited = await clock();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('1');
    now = second + 1_899;
    expect((await clock()).status).toBe(429);
    now = second + 1_900;
    expect((await clock()).status).toBe(200);
    // Over any second, never more than 2: the one at +950 still holds room with this one.
    now = second + 1_949;
    expect((await clock()).status).toBe(429);
    now = second + 1_950;
    expect((await clock()).status).toBe(200);
  });

  it('a merchant without a limit is never limited', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i++) statuses.add((await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/clock'))).status);
    expect([...statuses]).toEqual([200]);
  });

  it('SANDBOX_RATE_LIMIT (config.defaultRateLimit) is the default for new merchants', async () => {
    const limited = await memorySandbox({ config: { defaultRateLimit: 7 } });
    try {
      const enrolled = await limited.fetch(jsonRequest('POST', '/sandbox/v1/merchants', {}));
      expect(((await enrolled.json()) as { rate_limit_per_second: number }).rate_limit_per_second).toBe(7);
    } finally {
      await limited.close();
    }
  });
});

describe('SANDBOX_HTTP_STATUS=always-200', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { httpStatusMode: 'always-200' } });
  });
  afterAll(() => sandbox.close());

  it('answers HTTP 200 while code keeps the real value, for errors of every kind', async () => {
    const cases: [Request, number][] = [
      [jsonRequest('GET', '/openapi/v1/payments/payment/pay_nope'), 404],
      [jsonRequest('POST', '/openapi/v1/payments/payment', '{bad'), 400],
      [jsonRequest('GET', '/openapi/v1/payments/payment/x', undefined, { 'Service-Api-Key': 'wrong' }), 401],
      [jsonRequest('GET', '/no/such/route'), 404],
      [jsonRequest('PATCH', '/openapi/v1/payments/payment'), 405],
    ];
    for (const [request, code] of cases) {
      const res = await sandbox.fetch(request);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { code: number }).code).toBe(code);
    }
    const created = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    expect(created.status).toBe(200);
    expect(((await created.json()) as { code: number }).code).toBe(200);
  });
});
