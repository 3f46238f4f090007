/**
 * SPEC 18 "Held requests are bounded", over a real listening server: 32 creates of one merchant
 * held by timeout faults, the 33rd answered 429 at once; the places come back when the clients
 * close their connections. (The in-process cases are in test/http/held-requests.error.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { MAX_HELD_PER_MERCHANT } from '../../src/services/held-requests.js';
import { DEMO_KEY, DEMO_PAYEE, createBody, enroll, listeningSandbox } from '../support/http.js';
import { until } from '../support/until.js';

const live = listeningSandbox();

function create(body: Record<string, unknown>, fault: string, key = DEMO_KEY, signal?: AbortSignal): Promise<Response> {
  return fetch(`${live.server.url}/openapi/v1/payments/payment`, {
    method: 'POST',
    headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json', 'Sandbox-Fault': fault },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

describe('held requests over real connections', () => {
  it('the 33rd is 429 with Retry-After, another merchant is served, and closing the held connections frees the places', async () => {
    const { held } = live.sandbox.services;
    const clients = Array.from({ length: MAX_HELD_PER_MERCHANT }, () => new AbortController());
    const answers = clients.map((client) => create(createBody(), 'timeout', DEMO_KEY, client.signal).catch(() => undefined));
    await until(() => (held.count(DEMO_PAYEE) === MAX_HELD_PER_MERCHANT ? true : undefined), 'the held requests');

    const ref = createBody();
    const refused = await create(ref, 'latency=10');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('request-id')).toMatch(/^req_/);
    const body = (await refused.json()) as { code: number; description: string };
    expect(body.code).toBe(429);
    expect(body.description).toMatch(/already has 32 requests held by latency or timeout faults on this instance, the most at once, so nothing was done; retry after \d+ s/);

    const other = await enroll(live.sandbox, { name: 'Neighbour Shop' });
    expect((await create(createBody({ payee: other.payee_id }), 'latency=10', other.api_key)).status).toBe(200);

    for (const client of clients) client.abort();
    await Promise.all(answers);
    await until(() => (held.count(DEMO_PAYEE) === 0 ? true : undefined), 'the places to come back');
    expect((await create(createBody(), 'latency=10')).status).toBe(200);
    const listed = await fetch(`${live.server.url}/sandbox/v1/payments?merchant_ref_no=${ref.merchant_ref_no as string}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    expect(((await listed.json()) as { total: number }).total).toBe(0);
  });
});
