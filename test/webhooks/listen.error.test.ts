/** The listen stream's unhappy paths (SPEC 22): the cap per merchant, bad queries and answers, a listener that does not answer. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { MAX_LISTENERS_PER_MERCHANT } from '../../src/services/webhook-stream.js';
import { call, expectEnvelope, memorySandbox, toAnswer } from '../support/http.js';
import { answer, listeningMerchant, openStream } from '../support/webhook-stream.js';
import type { OpenStream } from '../support/webhook-stream.js';
import { until } from '../support/until.js';

describe('the webhook stream, refused and failing', () => {
  let sandbox: Sandbox;
  const streams: OpenStream[] = [];
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.close();
    await sandbox?.close();
  });

  async function setUp() {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 60_000] } });
    return listeningMerchant(sandbox, streams, 'Stream Errors');
  }

  it(`a merchant's stream past ${MAX_LISTENERS_PER_MERCHANT} answers 429 naming the cap, and the open ones keep getting deliveries`, async () => {
    const { m, open, create } = await setUp();
    const held = [await open(), await open()];
    for (const s of held) await s.next('hello');
    const refused = await toAnswer((await open()).response);
    expectEnvelope(refused, 429);
    expect(refused.body.description).toMatch(/already has 2 listeners connected to this instance, the most it may hold \(2\): stop one/);
    expect(refused.headers.get('retry-after')).toBe('5');
    // Another merchant is not counted against it.
    const other = await sandbox.control.enroll({ name: 'Other Stream' });
    const theirs = await openStream(sandbox, other.apiKey);
    streams.push(theirs);
    expect(theirs.response.status).toBe(200);
    await create('cap-still-delivers');
    const event = await Promise.any(held.map((s) => s.next('delivery')));
    expect(event.event_type).toBe('payment.created');
    // Leaving frees a place.
    await held[0]!.close();
    await until(() => (sandbox.services.webhooks.listeners.count(m.payeeId) === 1 ? true : undefined), 'one stream left');
    expect((await open()).response.status).toBe(200);
  });

  it('a query parameter the stream does not take is named in Sandbox-Warning, as on every route: a typo of events does not pass unnoticed', async () => {
    const { open } = await setUp();
    const s = await open('?event=payment.paid');
    expect(s.response.status).toBe(200);
    expect(s.response.headers.get('sandbox-warning')).toBe('unknown query parameter "event" ignored (did you mean "events"?)');
    expect(await s.next('hello')).toMatchObject({ events: null });
  });

  it('events naming a type the sandbox does not send answers 400 and opens nothing', async () => {
    const { m, open } = await setUp();
    const bad = await toAnswer((await open('?events=payment.paid,payment.teleported')).response);
    expectEnvelope(bad, 400);
    expect(bad.body.description).toMatch(/events must be a comma-separated list of payment\.created, .*payment\.paid/);
    expect(sandbox.services.webhooks.listeners.has(m.payeeId)).toBe(false);
  });

  it('an answer no attempt waits for answers 404 saying why, and a malformed one 400 naming the field', async () => {
    const { m } = await setUp();
    const unknown = await toAnswer(await answer(sandbox, m.apiKey, { delivery_id: 'whd_nothing', attempt: 1, status: 200, latency_ms: 1 }));
    expectEnvelope(unknown, 404);
    expect(unknown.body.description).toMatch(/No attempt 1 of delivery "whd_nothing" waits for an answer: it was answered already, or its 5 s passed \(it counts as a timeout and is retried\)\./);
    const malformed = await toAnswer(await answer(sandbox, m.apiKey, { delivery_id: 'whd_x', attempt: 0, status: 42, latency_ms: -1 }));
    expectEnvelope(malformed, 400);
    expect(malformed.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['attempt', 'latency_ms', 'status']);
  });

  it('without the key neither the stream nor an answer is served (401)', async () => {
    await setUp();
    expectEnvelope(await call(sandbox, 'GET', '/sandbox/v1/webhook/stream', { key: null }), 401);
    expectEnvelope(await call(sandbox, 'POST', '/sandbox/v1/webhook/stream/answers', { key: 'sk_sandbox_wrong', body: { delivery_id: 'x', attempt: 1, status: 200, latency_ms: 1 } }), 401);
  });

  it('an attempt the listener does not answer within 5 s is recorded as a timeout and retried; a late answer is refused', async () => {
    const { m, open, create } = await setUp();
    const s = await open();
    await s.next('hello');
    await create('silent-listener');
    const event = await s.next('delivery');
    const [d] = await until(async () => {
      const all = await sandbox.services.webhooks.deliveries(m.payeeId, 5);
      return all[0]?.attempts.length === 1 ? all : undefined;
    }, 'the attempt timed out', 8_000);
    expect(d!.state).toBe('pending');
    expect(d!.attempts[0]).toMatchObject({ status: null, error: 'the listener gave no answer within 5 s' });
    expect(d!.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(4_900);
    expect(d!.nextAttemptAt).not.toBeNull();
    const late = await toAnswer(await answer(sandbox, m.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 200, latency_ms: 6000 }));
    expectEnvelope(late, 404);
    expect((await sandbox.services.webhooks.deliveries(m.payeeId, 5))[0]!.attempts).toHaveLength(1);
  }, 15_000);
});
