/**
 * A listener that reads nothing (SPEC 22): its stream holds at most its queue's bytes (attempts
 * that do not fit fail at once, to be retried), and once it has taken nothing for long it is closed.
 * Timings are shortened through the listeners' own settings; the HTTP layer hands the stream's body on as is.
 */
import { describe, expect, it } from 'vitest';
import { WebhookListeners } from '../../src/services/webhook-stream.js';
import { until } from '../support/until.js';

const QUEUE_BYTES = 8 * 1024;

function event(n: number) {
  return { delivery_id: `whd_${n}`, attempt: 1, event_type: 'payment.created', payment_id: `pay_${n}`, headers: { 'Sandbox-Event-Id': `evt_${n}` }, body: JSON.stringify({ pad: 'x'.repeat(1000), n }) };
}

describe('a listener that reads nothing', () => {
  it('never holds more than its queue: attempts past it are not written and fail at once, and the stalled stream is closed', async () => {
    let changes = 0;
    const listeners = new WebhookListeners(() => void changes++, { heartbeatMs: 20, stalledMs: 200, queueBytes: QUEUE_BYTES });
    const stream = listeners.open('payee_A', null, { hello: true });
    // Nobody reads stream.body: whatever is written stays queued in it.
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, n) => listeners.forward(event(n), 'payee_A', 50)));
    const written = outcomes.filter((o) => o.sent).length;
    // About 1.2 KB an event: 8 KiB takes 7 of them (the last one may pass the mark), not 40.
    expect(written).toBeGreaterThan(3);
    expect(written).toBeLessThanOrEqual(8);
    expect(outcomes.filter((o) => !o.sent).every((o) => o.answer === null)).toBe(true);
    // Nothing waits for an answer once the attempts are over: no entry is kept per attempt.
    expect(listeners.answer('payee_A', 'whd_0', 1, { status: 200, error: null, latencyMs: 1 })).toBe(false);
    await until(() => (listeners.has('payee_A') ? undefined : true), 'the stalled stream closed', 3_000);
    expect(changes).toBe(2);
    // Its body ends for whoever reads it at last: the queued bytes, then done.
    const reader = stream.body.getReader();
    let bytes = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    expect(bytes).toBeLessThan(QUEUE_BYTES + 1_300);
  });

  it('a listener that reads keeps its stream: heartbeats go out and nothing is closed', async () => {
    const listeners = new WebhookListeners(() => undefined, { heartbeatMs: 20, stalledMs: 100, queueBytes: QUEUE_BYTES });
    const stream = listeners.open('payee_B', null, { hello: true });
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const started = Date.now();
    while (Date.now() - started < 400) text += decoder.decode((await reader.read()).value);
    expect(text.startsWith('event: hello\ndata: {"hello":true}\n\n')).toBe(true);
    expect(text.split(': heartbeat\n\n').length).toBeGreaterThan(3);
    expect(listeners.has('payee_B')).toBe(true);
    listeners.closeAll();
    expect(listeners.has('payee_B')).toBe(false);
  });
});
