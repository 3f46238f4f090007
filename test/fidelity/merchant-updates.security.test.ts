import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { createBody, DEMO_KEY, jsonRequest, memorySandbox } from '../helpers.js';

/** A request whose body arrives in two parts, the second only when `release` is called. */
function slowJsonRequest(path: string, body: string): { request: Request; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(body.slice(0, 3)));
      await gate;
      controller.enqueue(encoder.encode(body.slice(3)));
      controller.close();
    },
  });
  const request = new Request(`http://sandbox.test${path}`, {
    method: 'POST',
    headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  return { request, release };
}

describe('changes to one merchant record never overwrite each other', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('a slow clock advance keeps a fault rule, a webhook URL and another advance made meanwhile', async () => {
    const slow = slowJsonRequest('/sandbox/v1/clock/advance', JSON.stringify({ seconds: 100 }));
    const pending = sandbox.fetch(slow.request);
    await new Promise((r) => setTimeout(r, 20));
    expect((await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/faults', { match: { path: '/v1/nothing' }, fault: 'latency=1' }))).status).toBe(200);
    expect((await sandbox.fetch(jsonRequest('PUT', '/sandbox/v1/webhook', { url: 'http://127.0.0.1:9/hooks' }))).status).toBe(200);
    expect((await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/clock/advance', { seconds: 100 }))).status).toBe(200);
    slow.release();
    expect((await pending).status).toBe(200);

    const clock = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/clock'))).json()) as { offset_seconds: number };
    expect(clock.offset_seconds).toBe(200);
    const rules = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults'))).json()) as { rules: unknown[] };
    expect(rules.rules).toHaveLength(1);
    const hook = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/webhook'))).json()) as { url: string };
    expect(hook.url).toBe('http://127.0.0.1:9/hooks');
  });
});

describe('a fault rule is not used up by a request that fails first', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox();
  });
  afterAll(() => sandbox.close());

  it('an invalid create leaves the rule whole and the journal shows no fault', async () => {
    await sandbox.fetch(jsonRequest('POST', '/sandbox/v1/faults', { match: { method: 'POST', path: '/openapi/v1/payments/payment' }, fault: 'error-after-commit=504', times: 1 }));
    const bad = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody({ amount: 'ten' })));
    expect(bad.status).toBe(400);
    const rules = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/faults'))).json()) as { rules: { times_left: number; fired: number; matched: number }[] };
    expect(rules.rules[0]).toMatchObject({ times_left: 1, fired: 0, matched: 1 });
    const journal = (await (await sandbox.fetch(jsonRequest('GET', '/sandbox/v1/requests?method=POST&limit=1'))).json()) as { requests: { status: number; fault: string | null }[] };
    expect(journal.requests[0]).toMatchObject({ status: 400, fault: null });
    const good = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody()));
    expect(good.status).toBe(504);
  });

  it('latency faults adding up to more than 60 s are refused', async () => {
    const res = await sandbox.fetch(jsonRequest('POST', '/openapi/v1/payments/payment', createBody(), { 'Sandbox-Fault': 'latency=40000, latency=40000' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { description: string }).description).toMatch(/80000 ms of latency in all; the most is 60000 ms/);
  });
});
