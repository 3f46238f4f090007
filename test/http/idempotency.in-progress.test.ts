/**
 * SPEC 16: "A repeat while the first is still being processed answers 402". The key is claimed
 * before the request waits for anything (an injected latency included), so a repeat during that
 * wait is told to retry later instead of running a second time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { call, createBody, expectEnvelope, sandboxPerTest } from '../support/http.js';
import type { Answer } from '../support/http.js';

const CREATE = '/openapi/v1/payments/payment';
const KEY = 'k1';
/** Long enough for the repeat to land inside it on a busy machine, short enough for a quick test. */
const LATENCY_MS = 1_000;
const REPEAT_AFTER_MS = 250;

const withKey = (headers: Record<string, string> = {}) => ({ 'Idempotency-Key': KEY, ...headers });

describe('Idempotency-Key while the first request is still running', () => {
  const each = sandboxPerTest();
  const paymentsWithRef = async (ref: unknown) => (await call(each.sandbox, 'GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`)).body.total as number;

  it('a repeat during the first one\'s latency is a 402 "still in progress"; once it has answered, a repeat replays it; one payment', async () => {
    const body = createBody();
    const first = call(each.sandbox, 'POST', CREATE, { body, headers: withKey({ 'Sandbox-Fault': `latency=${LATENCY_MS}` }) });
    await sleep(REPEAT_AFTER_MS);
    const during = await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() });
    expectEnvelope(during, 402);
    expect(during.body.description).toMatch(/still in progress: retry later/);
    expect(during.body.description).toContain(`"${KEY}"`);
    expect(during.headers.get('idempotent-replayed')).toBeNull();

    const answered = await first;
    expectEnvelope(answered, 200);
    expect(answered.headers.get('idempotent-replayed')).toBeNull();
    const after = await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() });
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.text).toBe(answered.text);
    expect(await paymentsWithRef(body.merchant_ref_no)).toBe(1);
  });

  it('keyed retries answered "still in progress" do not count against the readiness check refused-transition', async () => {
    const body = createBody();
    const first = call(each.sandbox, 'POST', CREATE, { body, headers: withKey({ 'Sandbox-Fault': `latency=${LATENCY_MS}` }) });
    await sleep(REPEAT_AFTER_MS);
    for (let i = 0; i < 4; i++) expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() }), 402);
    await first;
    const report = await call(each.sandbox, 'GET', '/sandbox/v1/readiness');
    const check = (report.body.checks as { id: string; status: string }[]).find((c) => c.id === 'refused-transition');
    expect(check?.status).toBe('not_tried');
  });

  it.each(['error=503', 'error=409'])('latency then %s: a repeat during the latency is a 402; the injected error is not kept, so the retry after it runs', async (error) => {
    const body = createBody();
    const first = call(each.sandbox, 'POST', CREATE, { body, headers: withKey({ 'Sandbox-Fault': `latency=${LATENCY_MS}, ${error}` }) });
    await sleep(REPEAT_AFTER_MS);
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() }), 402);
    const injected = await first;
    expectEnvelope(injected, Number(error.slice('error='.length)));
    expect(injected.body.description).toMatch(/nothing was committed/);
    expect(await paymentsWithRef(body.merchant_ref_no)).toBe(0);

    const retry = await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() });
    expectEnvelope(retry, 200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await paymentsWithRef(body.merchant_ref_no)).toBe(1);
  });

  it('an error= fault without latency is not kept either, whatever its status', async () => {
    const body = createBody();
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body, headers: withKey({ 'Sandbox-Fault': 'error=400' }) }), 400);
    const retry = await call(each.sandbox, 'POST', CREATE, { body, headers: withKey() });
    expectEnvelope(retry, 200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('concurrent identical requests: exactly one runs, the others get the 402 or its replay', async () => {
    const body = createBody();
    const answers: Answer[] = await Promise.all(Array.from({ length: 6 }, () => call(each.sandbox, 'POST', CREATE, { body, headers: withKey() })));
    const ran = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const other of answers.filter((a) => a !== ran[0])) {
      if (other.status === 402) expect(other.body.description).toMatch(/still in progress/);
      else expect([other.status, other.headers.get('idempotent-replayed'), other.text]).toEqual([200, 'true', ran[0]!.text]);
    }
    expect(await paymentsWithRef(body.merchant_ref_no)).toBe(1);
  });

  it('concurrent identical requests with a latency fault: exactly one runs, the others are 402s', async () => {
    const body = createBody();
    const headers = withKey({ 'Sandbox-Fault': 'latency=500' });
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(each.sandbox, 'POST', CREATE, { body, headers })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await paymentsWithRef(body.merchant_ref_no)).toBe(1);
  });
});
