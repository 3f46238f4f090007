/**
 * SPEC 18 "Held requests are bounded": at most 32 requests of one merchant held at once by
 * latency or timeout faults on one instance; the 33rd answers 429 at once with Retry-After,
 * naming the cap, and changes nothing (no payment, no rule used up, its Idempotency-Key free).
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { MAX_HELD_PER_MERCHANT } from '../../src/services/held-requests.js';
import { DEMO_KEY, DEMO_PAYEE, call, createBody, enroll, expectEnvelope, expectRefusedUnchanged, sandboxPerTest } from '../support/http.js';
import type { Answer } from '../support/http.js';
import { until } from '../support/until.js';

const CREATE = '/openapi/v1/payments/payment';
const CAP_TEXT = new RegExp(`already has ${MAX_HELD_PER_MERCHANT} requests held by latency or timeout faults on this instance, the most at once, so nothing was done; retry after \\d+ s`);

interface Holds {
  readonly answers: Promise<Response>[];
  giveUp(): void;
}

/** `count` creates held by `fault`; resolves once all of them hold a place. */
async function hold(
  sandbox: Sandbox,
  count: number,
  fault: string,
  body: () => Record<string, unknown> = createBody,
  payee = DEMO_PAYEE,
  key = DEMO_KEY,
  commits = fault === 'timeout',
): Promise<Holds> {
  const before = await paymentsOf(sandbox, key);
  const clients = Array.from({ length: count }, () => new AbortController());
  const answers = clients.map((client) =>
    sandbox.fetch(
      new Request(`http://sandbox.test${CREATE}`, {
        method: 'POST',
        headers: { 'Service-Api-Key': key, 'Content-Type': 'application/json', 'Sandbox-Fault': fault },
        body: JSON.stringify(body()),
        signal: client.signal,
      }),
    ),
  );
  await until(() => (sandbox.services.held.count(payee) === count ? true : undefined), `${count} held requests`);
  // A timeout holds after its commit: wait for the commits, so that nothing changes while a test compares.
  if (commits) await until(async () => ((await paymentsOf(sandbox, key)) === before + count ? true : undefined), `${count} held creates committed`);
  return { answers, giveUp: () => clients.forEach((client) => client.abort()) };
}

async function paymentsOf(sandbox: Sandbox, key: string): Promise<number> {
  return (await call(sandbox, 'GET', '/sandbox/v1/payments?limit=1', { key })).body.total as number;
}

async function ended(holds: Holds, sandbox: Sandbox, payee = DEMO_PAYEE): Promise<void> {
  await Promise.allSettled(holds.answers);
  await until(() => (sandbox.services.held.count(payee) === 0 ? true : undefined), 'the holds to end');
}

const heldCreate = (fault = 'latency=10', extra: Record<string, string> = {}) => ({ body: createBody(), headers: { 'Sandbox-Fault': fault, ...extra } });

describe('held requests are bounded per merchant', () => {
  const each = sandboxPerTest();

  it('the 33rd held request answers 429 at once with Retry-After and the cap in its description, and commits nothing', async () => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout');
    for (const fault of ['latency=10', 'timeout', 'latency=5, error=503']) {
      const refused = await expectRefusedUnchanged(each.sandbox, 'POST', CREATE, heldCreate(fault), 429, CAP_TEXT);
      // The first hold to end is sure to end within its timeout hold (120 s on the sandbox clock).
      expect(refused.headers.get('retry-after')).toBe('120');
      expect(refused.body.description).toContain('retry after 120 s');
    }
    // A request that is not held is served as usual meanwhile.
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body: createBody() }), 200);
    holds.giveUp();
    await ended(holds, each.sandbox);
  });

  it('another merchant is unaffected while one merchant is at the cap', async () => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout');
    const other = await enroll(each.sandbox, { name: 'Other Shop' });
    const otherBody = () => createBody({ payee: other.payee_id });
    const theirs = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout', otherBody, other.payee_id, other.api_key);
    theirs.giveUp();
    await ended(theirs, each.sandbox, other.payee_id);
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { key: other.api_key, body: otherBody(), headers: { 'Sandbox-Fault': 'latency=10' } }), 200);
    holds.giveUp();
    await ended(holds, each.sandbox);
  });

  it.each([
    ['the client gives up (timeout)', 'timeout', createBody, true],
    ['the latency passes', 'latency=200', createBody, false],
    ['the request fails after its latency (400)', 'latency=200', () => createBody({ amount: 'ten' }), false],
  ] as const)('a place is given back when %s: after the holds end the merchant can be held again', async (_name, fault, body, giveUp) => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, fault, body);
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, heldCreate()), 429);
    if (giveUp) holds.giveUp();
    await ended(holds, each.sandbox);
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, heldCreate()), 200);
    expect(each.sandbox.services.held.count(DEMO_PAYEE)).toBe(0);
  });

  it('the magic amount 900.03 holds like a timeout fault: the 33rd is refused before it commits', async () => {
    const magic = () => createBody({ amount: 900.03 });
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, '', magic, DEMO_PAYEE, DEMO_KEY, true);
    await expectRefusedUnchanged(each.sandbox, 'POST', CREATE, { body: magic() }, 429, CAP_TEXT);
    holds.giveUp();
    await ended(holds, each.sandbox);
  });

  it('a timeout whose client gave up before the change was committed holds nothing', async () => {
    const client = new AbortController();
    const answer = each.sandbox.fetch(
      new Request(`http://sandbox.test${CREATE}`, {
        method: 'POST',
        headers: { 'Service-Api-Key': DEMO_KEY, 'Content-Type': 'application/json', 'Sandbox-Fault': 'timeout' },
        body: JSON.stringify(createBody()),
        signal: client.signal,
      }),
    );
    client.abort();
    await Promise.allSettled([answer]);
    // Not held for the 120 s of the timeout: the place is free again at once.
    expect(each.sandbox.services.held.count(DEMO_PAYEE)).toBe(0);
  });

  it('a fault rule that fired for a refused request is not used up by it', async () => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout');
    const added = await call(each.sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'POST', path: CREATE }, fault: 'latency=10', times: 1 } });
    expectEnvelope(added, 200);
    const rule = async () => ((await call(each.sandbox, 'GET', '/sandbox/v1/faults')).body.rules as { times_left: number; fired: number }[])[0];
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body: createBody() }), 429);
    expect(await rule()).toMatchObject({ times_left: 1, fired: 0 });
    holds.giveUp();
    await ended(holds, each.sandbox);
    expectEnvelope(await call(each.sandbox, 'POST', CREATE, { body: createBody() }), 200);
    expect(await rule()).toMatchObject({ times_left: 0, fired: 1 });
  });

  it('the magic amount 900.03 refused with a 429 keeps nothing for its Idempotency-Key: a retry runs again', async () => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout');
    const request = { body: createBody({ amount: 900.03 }), headers: { 'Idempotency-Key': 'held-magic-1' } };
    const refused = await call(each.sandbox, 'POST', CREATE, request);
    expectEnvelope(refused, 429);
    expect(refused.body.description).toMatch(CAP_TEXT);
    // Run again, refused again: not the first 429 replayed.
    const retry = await call(each.sandbox, 'POST', CREATE, request);
    expectEnvelope(retry, 429);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    holds.giveUp();
    await ended(holds, each.sandbox);
  });

  it('the Idempotency-Key of a refused request is released: the retry runs once, then replays', async () => {
    const holds = await hold(each.sandbox, MAX_HELD_PER_MERCHANT, 'timeout');
    const request = heldCreate('latency=10', { 'Idempotency-Key': 'held-1' });
    const refused: Answer = await call(each.sandbox, 'POST', CREATE, request);
    expectEnvelope(refused, 429);
    const retry = await call(each.sandbox, 'POST', CREATE, { body: request.body, headers: { 'Idempotency-Key': 'held-1' } });
    expectEnvelope(retry, 200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const again = await call(each.sandbox, 'POST', CREATE, { body: request.body, headers: { 'Idempotency-Key': 'held-1' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment_id).toBe(retry.body.payment_id);
    holds.giveUp();
    await ended(holds, each.sandbox);
  });
});
