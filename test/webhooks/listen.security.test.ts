/** The listen stream keeps merchants apart (SPEC 22, 18): a stream carries its own merchant's deliveries only, and only its merchant answers them. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, createBody, expectEnvelope, memorySandbox, toAnswer } from '../support/http.js';
import { answer, openStream } from '../support/webhook-stream.js';
import type { OpenStream } from '../support/webhook-stream.js';
import { until } from '../support/until.js';

describe('the webhook stream between merchants', () => {
  let sandbox: Sandbox;
  const streams: OpenStream[] = [];
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.close();
    await sandbox?.close();
  });

  it("another merchant's stream never sees a delivery, and its answer to one is refused (404) while the attempt still waits for its own", async () => {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 60_000] } });
    const mine = await sandbox.control.enroll({ name: 'Mine' });
    const theirs = await sandbox.control.enroll({ name: 'Theirs' });
    const myStream = await openStream(sandbox, mine.apiKey);
    const theirStream = await openStream(sandbox, theirs.apiKey);
    streams.push(myStream, theirStream);
    const [myHello, theirHello] = [await myStream.next('hello'), await theirStream.next('hello')];
    expect(myHello.secret).not.toBe(theirHello.secret);
    const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { key: mine.apiKey, body: createBody({ payee: mine.payeeId, merchant_ref_no: 'mine-1' }) });
    expect(created.status).toBe(200);
    const event = await myStream.next('delivery');
    const forged = await toAnswer(await answer(sandbox, theirs.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 200, latency_ms: 1 }));
    expectEnvelope(forged, 404);
    expect((await sandbox.services.webhooks.deliveries(mine.payeeId, 5))[0]).toMatchObject({ state: 'pending', attempts: [] });
    expect((await answer(sandbox, mine.apiKey, { delivery_id: event.delivery_id, attempt: 1, status: 200, latency_ms: 1 })).status).toBe(200);
    await until(async () => ((await sandbox.services.webhooks.deliveries(mine.payeeId, 5))[0]?.state === 'delivered' ? true : undefined), 'delivered');
    expect(theirStream.events.filter((e) => e.event === 'delivery')).toEqual([]);
    // The secret is the merchant's own: no other merchant's stream shows it.
    expect(JSON.stringify(theirStream.events)).not.toContain(myHello.secret);
  });

  it("a deleted merchant's stream ends (its key answers 401 from then on)", async () => {
    sandbox = await memorySandbox();
    const gone = await sandbox.control.enroll({ name: 'Leaving' });
    const stays = await sandbox.control.enroll({ name: 'Staying' });
    const [goneStream, staysStream] = [await openStream(sandbox, gone.apiKey), await openStream(sandbox, stays.apiKey)];
    streams.push(goneStream, staysStream);
    await goneStream.next('hello');
    await staysStream.next('hello');
    expect((await call(sandbox, 'DELETE', '/sandbox/v1/merchant', { key: gone.apiKey })).status).toBe(200);
    // Looked for with the listeners' renewal, every 10 s.
    await until(() => (goneStream.ended() ? true : undefined), 'the deleted merchant\'s stream ended', 15_000);
    expect(staysStream.ended()).toBe(false);
    expect(sandbox.services.webhooks.listeners.has(stays.payeeId)).toBe(true);
  }, 20_000);
});
