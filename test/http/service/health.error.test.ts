/**
 * SPEC 19: /readyz (and /healthz) answer 503 with the reason while the instance drains or its
 * store is not ready, whatever SANDBOX_HTTP_STATUS says; /livez answers 200 all the same and
 * touches no store.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, createPayment, expectEnvelope, memorySandbox, statusOf, toAnswer } from '../../support/http.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox?.close();
  sandbox = undefined;
});

describe('an instance that drains', () => {
  it('answers /readyz and /healthz 503 naming the drain, /livez 200, and still serves what it is sent', async () => {
    sandbox = await memorySandbox();
    const server = await sandbox.listen(0, '127.0.0.1');
    const created = await createPayment(sandbox);
    sandbox.services.drain.start('SIGTERM received');
    for (const path of ['/readyz', '/healthz']) {
      const answer = await toAnswer(await fetch(`${server.url}${path}`));
      expectEnvelope(answer, 503);
      expect(answer.body.reason).toBe('draining');
      expect(answer.body.description).toMatch(/^Not ready: this instance is draining \(SIGTERM received\); .* send new requests to another instance\.$/);
    }
    expectEnvelope(await toAnswer(await fetch(`${server.url}/livez`)), 200);
    expect((await statusOf(sandbox, created.payment_id)).payment_status).toBe('P');
  });

  it('keeps the first reason given', async () => {
    sandbox = await memorySandbox();
    sandbox.services.drain.start('SIGTERM received');
    sandbox.services.drain.start('SIGINT received');
    expect((await call(sandbox, 'GET', '/readyz', { key: null })).body.description).toContain('(SIGTERM received)');
  });
});

describe('a store that is not ready', () => {
  it('answers /readyz and /healthz 503 with the store error; /livez 200 without asking the store', async () => {
    sandbox = await memorySandbox();
    const ready = vi.spyOn(sandbox.services.store, 'ready').mockRejectedValue(new Error('the database postgres://u:***@db/x cannot be reached (ECONNREFUSED)'));
    const live = await call(sandbox, 'GET', '/livez', { key: null });
    expectEnvelope(live, 200);
    expect(ready).not.toHaveBeenCalled();
    for (const path of ['/readyz', '/healthz']) {
      const answer = await call(sandbox, 'GET', path, { key: null });
      expectEnvelope(answer, 503);
      expect(answer.body).toMatchObject({ reason: 'store', store: sandbox.services.store.kind });
      expect(answer.body.description).toMatch(/^Not ready: the database .* cannot be reached \(ECONNREFUSED\)\. Requests that read or change data fail until the store is back\.$/);
    }
  });

  it('answers 503 even with SANDBOX_HTTP_STATUS=always-200 (a balancer reads the status)', async () => {
    sandbox = await memorySandbox({ config: { httpStatusMode: 'always-200' } });
    sandbox.services.drain.start('SIGTERM received');
    const answer = await call(sandbox, 'GET', '/readyz', { key: null });
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe(503);
  });
});
