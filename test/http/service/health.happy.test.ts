/** SPEC 19: /livez answers while the process answers, /readyz while the store is ready and the instance takes work, /healthz = /readyz; none needs a key. */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/index.js';
import { removeTempDirs, tempDir } from '../../support/files.js';
import { call, expectEnvelope, listeningSandbox, toAnswer } from '../../support/http.js';

describe('health routes over a real listening server', () => {
  const live = listeningSandbox();

  it('GET /livez answers 200 without a key, and says where readiness is', async () => {
    const answer = await toAnswer(await fetch(`${live.server.url}/livez`));
    expectEnvelope(answer, 200);
    expect(answer.body.description).toMatch(/GET \/readyz/);
    expect(answer.headers.get('request-id')).toMatch(/^req_/);
  });

  it('GET /readyz and GET /healthz answer 200 with the same body, naming the store', async () => {
    const ready = await toAnswer(await fetch(`${live.server.url}/readyz`));
    const health = await toAnswer(await fetch(`${live.server.url}/healthz`));
    expectEnvelope(ready, 200);
    expect(ready.body).toEqual({ code: 200, description: `ok: the ${live.sandbox.services.store.kind} store can be read and written.`, store: live.sandbox.services.store.kind });
    expect(health.body).toEqual(ready.body);
  });

  it('HEAD answers each with its status and no body', async () => {
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const answer = await fetch(`${live.server.url}${path}`, { method: 'HEAD' });
      expect(answer.status, path).toBe(200);
      expect(await answer.text(), path).toBe('');
    }
  });

  it('a key, known or not, changes nothing', async () => {
    for (const path of ['/livez', '/readyz']) {
      expectEnvelope(await call(live.sandbox, 'GET', path, { key: 'sk_sandbox_nonsense' }), 200);
      expectEnvelope(await call(live.sandbox, 'GET', path), 200);
    }
  });

  it('/openapi.json documents the three, open, /readyz and /healthz with their 503', async () => {
    const doc = (await call(live.sandbox, 'GET', '/openapi.json', { key: null })).body;
    expect(Object.keys(doc.paths['/livez'].get.responses)).toEqual(['200', '408', '431']);
    for (const path of ['/readyz', '/healthz']) {
      const operation = doc.paths[path].get;
      expect(operation.security).toEqual([]);
      expect(Object.keys(operation.responses)).toEqual(['200', '408', '431', '500', '503']);
      expect(JSON.stringify(operation.responses['503'])).toContain('draining');
    }
  });
});

describe('health routes on the file store', () => {
  afterAll(removeTempDirs);

  it('/livez and /readyz answer 200 over HTTP, /readyz naming the file store; draining turns /readyz to 503', async () => {
    const sandbox = await createSandbox({ store: 'file', dataFile: path.join(tempDir(), 'sandbox.json'), scheduler: false });
    try {
      const server = await sandbox.listen(0, '127.0.0.1');
      expectEnvelope(await toAnswer(await fetch(`${server.url}/livez`)), 200);
      const ready = await toAnswer(await fetch(`${server.url}/readyz`));
      expectEnvelope(ready, 200);
      expect(ready.body.store).toBe('file');
      sandbox.services.drain.start('SIGTERM received');
      const draining = await toAnswer(await fetch(`${server.url}/readyz`));
      expectEnvelope(draining, 503);
      expect(draining.body).toMatchObject({ store: 'file', reason: 'draining' });
    } finally {
      await sandbox.close();
    }
  });
});
