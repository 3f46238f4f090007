/** SPEC 16: Idempotency-Key replays the first answer of a POST instead of making a second change. */
import { describe, expect, it } from 'vitest';
import { DEMO_PAYEE, call, createBody, expectEnvelope, listeningSandbox, sandboxPerTest } from '../support/http.js';
import type { Answer } from '../support/http.js';
import { until } from '../support/until.js';

const KEY = 'order-7f3c2a';

const withKey = (key: string, headers: Record<string, string> = {}) => ({ 'Idempotency-Key': key, ...headers });

/** A create sent in-process whose answer is held (a timeout fault or magic amount); abort to let it go. */
function heldCreate(sandbox: Parameters<typeof call>[0], body: Record<string, unknown>, headers: Record<string, string>) {
  const controller = new AbortController();
  const held = sandbox.fetch(
    new Request('http://sandbox/openapi/v1/payments/payment', {
      method: 'POST',
      headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    }),
  );
  return { held, abort: () => controller.abort() };
}

async function paymentsWithRef(each: { sandbox: Parameters<typeof call>[0] }, ref: string): Promise<number> {
  return (await call(each.sandbox, 'GET', `/sandbox/v1/payments?merchant_ref_no=${ref}`)).body.total as number;
}

describe('Idempotency-Key on create', () => {
  const each = sandboxPerTest();

  it('a repeat with the same key and body gets the first answer byte for byte, marked replayed, and no second payment', async () => {
    const body = createBody();
    const first = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    const again = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    expectEnvelope(first, 200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await paymentsWithRef(each, body.merchant_ref_no as string)).toBe(1);
  });

  it('compares bodies after JSON parsing: another key order and spacing is the same body', async () => {
    const body = createBody({ metadata: { b: 1, a: { y: 2, x: 3 } } });
    const first = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    const reordered = `{ "amount": ${body.amount}, "product_type": "QR_DYNAMIC", "metadata": {"a": {"x": 3, "y": 2}, "b": 1}, "merchant_ref_no": "${body.merchant_ref_no}", "payee": "${DEMO_PAYEE}" }`;
    const again = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: reordered, headers: withKey(KEY) });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('keys are per merchant: another merchant with the same key gets its own answer', async () => {
    const other = await each.sandbox.control.enroll({ name: 'Other Shop' });
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: withKey(KEY) });
    const theirs = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { key: other.apiKey, body: createBody({ payee: other.payeeId }), headers: withKey(KEY) });
    expectEnvelope(theirs, 200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a timeout after commit keeps the committed answer: a repeat while the first is still held replays it', async () => {
    const body = createBody();
    const { held, abort } = heldCreate(each.sandbox, body, withKey(KEY, { 'Sandbox-Fault': 'timeout' }));
    // Sent only once the first has committed: on a busy machine the repeat could otherwise arrive first and be the one that creates.
    await until(async () => ((await paymentsWithRef(each, body.merchant_ref_no as string)) === 1 ? true : undefined), 'the held create to commit');
    // Until its answer is kept, a repeat answers 402 "in progress" and changes nothing.
    const again = await until(async () => {
      const repeat = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
      return repeat.status === 402 ? undefined : repeat;
    }, 'the held create to commit');
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment_id).toMatch(/^pay_/);
    abort();
    const firstAnswer = await held.then((r) => r.status, () => 'aborted');
    expect([504, 'aborted']).toContain(firstAnswer);
    expect(await paymentsWithRef(each, body.merchant_ref_no as string)).toBe(1);
  });

  it.each([
    ['error-after-commit=500', 'Sandbox-Fault', 'error-after-commit=500'],
    ['drop', 'Sandbox-Fault', 'drop'],
  ])('after %s, the retry gets the answer the first would have had', async (_name, header, value) => {
    const body = createBody();
    const first = await each.sandbox.fetch(
      new Request('http://sandbox/openapi/v1/payments/payment', {
        method: 'POST',
        headers: { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json', [header]: value, ...withKey(KEY) },
        body: JSON.stringify(body),
      }),
    ).then((r) => r.status, () => 'dropped');
    expect([500, 'dropped']).toContain(first);
    const again = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await paymentsWithRef(each, body.merchant_ref_no as string)).toBe(1);
  });

  it('an answer of a fault before commit (error=503) is not kept: the retry runs', async () => {
    const body = createBody();
    const first = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY, { 'Sandbox-Fault': 'error=503' }) });
    expectEnvelope(first, 503);
    const again = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('magic amount 900.03 (held after commit): a repeat replays the created payment', async () => {
    const body = createBody({ amount: 900.03 });
    const { held, abort } = heldCreate(each.sandbox, body, withKey(KEY));
    // Sent only once the first has committed: a repeat that arrived first would create, and be held itself.
    await until(async () => ((await paymentsWithRef(each, body.merchant_ref_no as string)) === 1 ? true : undefined), 'the held create to commit');
    // Until its answer is kept, a repeat answers 402 "in progress" and changes nothing.
    const again = await until(async () => {
      const repeat = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
      return repeat.status === 402 ? undefined : repeat;
    }, 'the held create to commit');
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    abort();
    await held.catch(() => undefined);
  });

  it('a key is kept for 24 hours of the merchant clock; after that the same request runs again', async () => {
    const body = createBody();
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    await call(each.sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 86_400 } });
    const later = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    // It ran: the merchant_ref_no is taken, so this is the duplicate 402, not a replay.
    expectEnvelope(later, 402);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a reset erases the keys', async () => {
    const body = createBody();
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    await call(each.sandbox, 'POST', '/sandbox/v1/reset');
    const again = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body, headers: withKey(KEY) });
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key on control POSTs', () => {
  const each = sandboxPerTest();

  it('a repeated pay with the same key replays its 200 instead of refusing a second pay', async () => {
    const id = (await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() })).body.payment_id as string;
    const first = await call(each.sandbox, 'POST', `/sandbox/v1/payments/${id}/pay`, { headers: withKey('pay-1') });
    const again = await call(each.sandbox, 'POST', `/sandbox/v1/payments/${id}/pay`, { headers: withKey('pay-1') });
    const unkeyed: Answer = await call(each.sandbox, 'POST', `/sandbox/v1/payments/${id}/pay`);
    expectEnvelope(first, 200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectEnvelope(unkeyed, 402);
  });
});

describe('Idempotency-Key through a real server: the lost answer recovered', () => {
  const live = listeningSandbox({ scheduler: false, config: { timeoutHoldMs: 5_000 } });

  it('the client gives up on a held create, retries with the same key, and gets the same payment', async () => {
    const body = JSON.stringify(createBody());
    const headers = { 'Service-Api-Key': 'sk_sandbox_demo_merchant_key', 'Content-Type': 'application/json', 'Idempotency-Key': 'lost-answer-1' };
    const lost = await fetch(`${live.server.url}/openapi/v1/payments/payment`, {
      method: 'POST',
      headers: { ...headers, 'Sandbox-Fault': 'timeout' },
      body,
      signal: AbortSignal.timeout(300),
    }).then(() => 'answered', (err: Error) => err.name);
    expect(lost).toBe('TimeoutError');
    const retry = await fetch(`${live.server.url}/openapi/v1/payments/payment`, { method: 'POST', headers, body });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const { payment_id: id } = (await retry.json()) as { payment_id: string };
    const status = await fetch(`${live.server.url}/openapi/v1/payments/payment/${id}`, { headers });
    expect(((await status.json()) as { payment_status: string }).payment_status).toBe('P');
  });
});
