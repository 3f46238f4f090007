/**
 * The webhook secret (SPEC 18): a URL gets a secret shown once, rotation answers a new one, and
 * every attempt is signed with the secret in force over its own timestamp and the body's bytes.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, DEMO_KEY, DEMO_PAYEE, listeningSandbox, manualClock } from '../support/http.js';
import { receiver, signedWith } from '../support/webhook-receiver.js';
import type { Received } from '../support/webhook-receiver.js';
import { until } from '../support/until.js';
import { memorySandbox } from '../helpers.js';

type Receiver = Awaited<ReturnType<typeof receiver>>;
const SECRET = /^whsec_[A-Za-z0-9_-]{32}$/;

describe('the webhook secret, shown once', () => {
  let sandbox: Sandbox;
  let hook: Receiver;
  let other: Receiver;
  beforeAll(async () => {
    hook = await receiver();
    other = await receiver();
  });
  afterAll(async () => {
    await hook.close();
    await other.close();
  });
  beforeEach(async () => {
    sandbox = await memorySandbox({ config: { webhookRetryDelaysMs: [0, 20] } });
  });
  afterEach(() => sandbox.close());

  /** Sends a test event and answers what the receiver got. */
  async function testEvent(r: Receiver): Promise<Received> {
    const sent = await call(sandbox, 'POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.paid' } });
    expect(sent.status, sent.text).toBe(200);
    return until(() => r.received.find((x) => x.body.event_id === sent.body.delivery.event_id), 'the test event');
  }

  it('setting a URL answers a whsec_ secret of at least 128 random bits, once; GET never shows it', async () => {
    const set = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } });
    expect(set.status).toBe(200);
    expect(set.body.secret).toMatch(SECRET);
    expect(set.body.description).toMatch(/Sandbox-Signature.*shown only now/);
    const get = await call(sandbox, 'GET', '/sandbox/v1/webhook');
    expect(get.body).not.toHaveProperty('secret');
    expect(get.text).not.toContain(set.body.secret);
    expect(signedWith(await testEvent(hook), set.body.secret)).toBe(true);
    // Another merchant's secret is its own.
    const enrolled = await sandbox.control.enroll();
    const theirs = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { key: enrolled.apiKey, body: { url: hook.url } });
    expect(theirs.body.secret).toMatch(SECRET);
    expect(theirs.body.secret).not.toBe(set.body.secret);
  });

  it('the same URL again, or drills alone, keep the secret and do not show it', async () => {
    const first = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
    const same = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } });
    const drills = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { faults: { reorder: true } } });
    for (const answer of [same, drills]) {
      expect(answer.status).toBe(200);
      expect(answer.body).not.toHaveProperty('secret');
      expect(answer.body.description).toContain('the secret this URL already has');
    }
    expect(signedWith(await testEvent(hook), first)).toBe(true);
  });

  it('another URL makes a new secret: the old one no longer verifies', async () => {
    const first = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
    const moved = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: other.url } });
    expect(moved.body.secret).toMatch(SECRET);
    expect(moved.body.secret).not.toBe(first);
    const got = await testEvent(other);
    expect(signedWith(got, moved.body.secret)).toBe(true);
    expect(signedWith(got, first)).toBe(false);
  });

  it('turning webhooks off keeps the secret unshown; setting a URL again makes a new one', async () => {
    const first = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
    const off = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: null } });
    expect(off.body).not.toHaveProperty('secret');
    expect((await sandbox.services.store.merchant(DEMO_PAYEE))?.webhookSecret).toBe(first);
    const again = await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } });
    expect(again.body.secret).toMatch(SECRET);
    expect(again.body.secret).not.toBe(first);
  });

  it('POST /sandbox/v1/webhook/secret answers a new secret once; deliveries are signed with it from then on', async () => {
    const first = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
    const rotated = await call(sandbox, 'POST', '/sandbox/v1/webhook/secret');
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ code: 200, url: hook.url, secret: expect.stringMatching(SECRET) });
    expect(rotated.body.secret).not.toBe(first);
    expect(rotated.body.description).toMatch(/shown only now.*the old secret signs nothing/);
    const got = await testEvent(hook);
    expect(signedWith(got, rotated.body.secret)).toBe(true);
    expect(signedWith(got, first)).toBe(false);
    expect((await call(sandbox, 'GET', '/sandbox/v1/webhook')).text).not.toContain(rotated.body.secret);
  });

  it('a rotation repeated with its Idempotency-Key answers the first answer and rotates once', async () => {
    await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } });
    const headers = { 'Idempotency-Key': 'rotate-1' };
    const first = await call(sandbox, 'POST', '/sandbox/v1/webhook/secret', { headers });
    const repeat = await call(sandbox, 'POST', '/sandbox/v1/webhook/secret', { headers });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.secret).toBe(first.body.secret);
    expect((await sandbox.services.store.merchant(DEMO_PAYEE))?.webhookSecret).toBe(first.body.secret);
  });

  it('a reset keeps the URL and its secret', async () => {
    const secret = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
    expect((await call(sandbox, 'POST', '/sandbox/v1/reset')).status).toBe(200);
    expect(signedWith(await testEvent(hook), secret)).toBe(true);
  });
});

describe('each attempt is signed with its own timestamp', () => {
  it('a retry carries a fresh t, and each attempt verifies at its own time (not at the other)', async () => {
    const clock = manualClock();
    const sandbox = await memorySandbox({ clock: clock.clock, config: { webhookRetryDelaysMs: [0, 1000] } });
    const hook = await receiver();
    try {
      const secret = (await call(sandbox, 'PUT', '/sandbox/v1/webhook', { body: { url: hook.url } })).body.secret as string;
      hook.replies.push(500);
      const sent = await call(sandbox, 'POST', '/sandbox/v1/webhook/test', { body: { type: 'payment.created' } });
      expect(sent.body.delivery.attempts).toEqual([expect.objectContaining({ status: 500 })]);
      // The retry comes due on the sandbox's clock 1 s later; move it 600 s, past a receiver's 5 minutes.
      clock.advance(600_000);
      sandbox.services.webhooks.kick();
      await until(() => (hook.received.length >= 2 ? true : undefined), 'the retry');
      const [first, retry] = hook.received as [Received, Received];
      expect(retry.raw.equals(first.raw)).toBe(true);
      const t = (r: Received) => Number(/^t=(\d+),/.exec(r.headers['sandbox-signature'] as string)![1]);
      expect(t(first)).toBe(Math.floor((clock.now - 600_000) / 1000));
      expect(t(retry)).toBe(Math.floor(clock.now / 1000));
      expect(signedWith(first, secret, { now: t(first) })).toBe(true);
      expect(signedWith(retry, secret, { now: t(retry) })).toBe(true);
      // A receiver refusing deliveries older than 5 minutes refuses the first attempt replayed now.
      expect(signedWith(first, secret, { now: t(retry) })).toBe(false);
    } finally {
      await sandbox.close();
      await hook.close();
    }
  });
});

describe('POST /sandbox/v1/webhook/secret through a listening server', () => {
  const live = listeningSandbox({ config: { webhookRetryDelaysMs: [0] } });

  it('rotates over real HTTP, and a delivery verifies with the new secret', async () => {
    const hook = await receiver();
    try {
      const send = async (method: string, route: string, body?: unknown) => {
        const res = await fetch(`${live.server.url}${route}`, {
          method,
          headers: { 'Service-Api-Key': DEMO_KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const set = await send('PUT', '/sandbox/v1/webhook', { url: hook.url });
      const rotated = await send('POST', '/sandbox/v1/webhook/secret');
      expect(rotated).toMatchObject({ status: 200, body: { code: 200, url: hook.url, secret: expect.stringMatching(SECRET) } });
      expect(rotated.body.secret).not.toBe(set.body.secret);
      const test = await send('POST', '/sandbox/v1/webhook/test', { type: 'payment.settled' });
      expect(test.status).toBe(200);
      expect(signedWith(hook.received[0]!, rotated.body.secret)).toBe(true);
    } finally {
      await hook.close();
    }
  });
});
