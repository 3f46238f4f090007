/**
 * With the API key alone a delivery cannot be forged (SPEC 18): no answer of any control route,
 * the journal, the dashboard or the log ever carries the webhook secret after the answer that
 * made it, and nothing the key can obtain (tools/sign, the salt, the key) makes a
 * Sandbox-Signature the receiver accepts.
 */
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, DEMO_KEY, DEMO_PAYEE } from '../support/http.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { openStream } from '../support/webhook-stream.js';
import { until } from '../support/until.js';
import { memorySandbox } from '../helpers.js';

describe('the API key alone cannot forge a delivery', () => {
  let sandbox: Sandbox;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const logLines: string[] = [];
  /** The secret the receiver trusts, and the first delivery it got. */
  let secret: string;
  let delivery: Received;
  /** Every answer text the key got after the PUT that showed the secret. */
  const answers: string[] = [];

  beforeAll(async () => {
    const log = pino({ level: 'debug' }, new Writable({ write: (chunk: Buffer, _enc, done) => (logLines.push(chunk.toString()), done()) }));
    sandbox = await memorySandbox({ log, config: { webhookRetryDelaysMs: [0] } });
    hook = await receiver();
    const set = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } });
    secret = set.body.secret;
    const test = await call(sandbox, 'POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.paid' } });
    answers.push(test.text);
    delivery = await until(() => hook.received[0], 'the first delivery');
    expect(signedWith(delivery, secret)).toBe(true);
  });
  afterAll(async () => {
    await sandbox.close();
    await hook.close();
  });

  it('no keyed GET of the contract, the dashboard, nor the log carries the secret', async () => {
    const document = (await call(sandbox, 'GET', '/openapi.json', { key: null })).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const keyed = Object.entries(document.paths)
      .filter(([path, ops]) => !path.includes('{') && (ops.get?.security?.length ?? 0) > 0)
      .map(([path]) => path);
    expect(keyed).toEqual(expect.arrayContaining(['/sandbox/v1/webhook', '/sandbox/v1/webhook/deliveries', '/sandbox/v1/requests', '/sandbox/v1/merchant']));
    // Other changes the key can make first: the same URL again, drills alone, a replay.
    answers.push((await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).text);
    answers.push((await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { faults: { duplicate: 0 } } })).text);
    const [logged] = await sandbox.services.webhooks.deliveries(DEMO_PAYEE, 1);
    answers.push((await call(sandbox, 'POST', `/sandbox/v1/webhook/deliveries/${logged!.id}/replay`)).text);
    for (const path of keyed) {
      if (path === '/sandbox/v1/webhook/stream') {
        // The listen stream never ends: its first event (the listener's own secret) is what it shows.
        const stream = await openStream(sandbox, DEMO_KEY);
        await stream.next('hello');
        answers.push(JSON.stringify(stream.events));
        await stream.close();
        continue;
      }
      const answer = await call(sandbox, 'GET', path);
      expect(answer.status, path).toBeLessThan(500);
      answers.push(answer.text);
    }
    answers.push((await call(sandbox, 'GET', '/sandbox', { key: null })).text);
    for (const text of answers) expect(text).not.toContain(secret);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(secret);
  });

  it('the journal keeps the answer that showed the secret masked', async () => {
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?path=/sandbox/v1/webhook&method=PUT&limit=500');
    const shown = (journal.body.requests as { response_body: { secret?: string } | null }[]).map((e) => e.response_body?.secret).filter(Boolean);
    expect(shown.length).toBeGreaterThan(0);
    for (const masked of shown) expect(masked).toMatch(/^\*\*\*.{4}$/);
    expect(journal.text).not.toContain(secret);
  });

  it('tools/sign signs with the salt only: nothing it, the salt or the key give makes a Sandbox-Signature the receiver accepts', async () => {
    const body = JSON.parse(delivery.text) as Record<string, unknown>;
    const signed = await call(sandbox, 'POST', '/sandbox/v1/tools/sign', { body });
    expect(signed.status).toBe(200);
    expect(signed.text).not.toContain(secret);
    const salt = sandbox.demoMerchants[0]!.signingSalt;
    const t = Math.floor(Date.now() / 1000);
    const hmac = (key: string) => createHmac('sha256', key).update(`${t}.`).update(delivery.raw).digest('hex');
    const forgeries = [signed.body.sign as string, hmac(salt), hmac(DEMO_KEY), hmac(signed.body.sign as string)];
    for (const v1 of forgeries) {
      const forged: Received = { ...delivery, headers: { ...delivery.headers, 'sandbox-signature': `t=${t},v1=${v1}` } };
      expect(signedWith(forged, secret), v1).toBe(false);
    }
    // The body sent carries no signature made with the salt that tools/sign could reproduce.
    expect(delivery.body).not.toHaveProperty('sign');
  });

  it('rotating with the key makes a new secret: it never yields the one the receiver trusts', async () => {
    const rotated = await call(sandbox, 'POST', '/sandbox/v1/webhook/secret');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const next = await call(sandbox, 'POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.created' } });
    const got = await until(() => hook.received.find((r) => r.body.event_id === next.body.delivery.event_id), 'a delivery after rotation');
    expect(signedWith(got, secret)).toBe(false);
  });
});
