/** The outermost layer on a small app of its own: the record, the 414, the log line and the metrics. */
import { Writable } from 'node:stream';
import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Services } from '../../../src/http/context.js';
import { ok } from '../../../src/http/envelope.js';
import { answerError } from '../../../src/http/errors.js';
import { everyRequest } from '../../../src/http/middleware/every-request.js';
import { MAX_PATH_LENGTH } from '../../../src/http/middleware/path-length.js';

interface Observed {
  readonly method: string;
  readonly route: string;
  readonly status: number | string;
  readonly injected: boolean;
}

/** A small app under everyRequest alone. */
function appWith() {
  const lines: Record<string, unknown>[] = [];
  const observed: Observed[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const services = {
    config: { httpStatusMode: 'mirror-code', logHealthChecks: false, trustProxy: false },
    log: pino({ base: null }, sink),
    metrics: { observeRequest: (method: string, route: string, status: number | string, _s: number, injected: boolean) => observed.push({ method, route, status, injected }) },
  } as unknown as Services;
  const app = new Hono<AppEnv>();
  app.use('*', everyRequest(services, () => true));
  app.onError(answerError);
  return { app, lines, observed };
}

describe('everyRequest: the record, the log line and the metrics', () => {
  it('keeps a sane client Request-Id and draws one for an unsafe or missing one', async () => {
    const { app } = appWith();
    app.get('/x', (c) => ok(c, 'ok'));
    expect((await app.request('/x', { headers: { 'Request-Id': 'client-1.a:b' } })).headers.get('request-id')).toBe('client-1.a:b');
    const drawn = (await app.request('/x', { headers: { 'Request-Id': 'bad id<script>' } })).headers.get('request-id');
    expect(drawn).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect((await app.request('/x')).headers.get('request-id')).toMatch(/^req_/);
  });

  it('sets Request-Id on an answer that is not an envelope too', async () => {
    const { app } = appWith();
    app.get('/page', (c) => c.html('<p>hi</p>'));
    const answer = await app.request('/page', { headers: { 'Request-Id': 'page-1' } });
    expect(answer.headers.get('request-id')).toBe('page-1');
  });

  it('writes one log line and one observation per request, labelled by route pattern, never the raw path', async () => {
    const { app, lines, observed } = appWith();
    app.get('/payments/:id', (c) => ok(c, 'ok'));
    await app.request('/payments/pay_123', { headers: { 'Request-Id': 'r-1' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', request_id: 'r-1', method: 'GET', route: '/payments/:id', status: 200, payee_id: null, client: 'in-process' });
    expect(JSON.stringify(lines[0])).not.toContain('pay_123');
    expect(observed).toEqual([{ method: 'GET', route: '/payments/:id', status: 200, injected: false }]);
  });

  it('answers 414 for a path over the limit before any handler, still logged and counted', async () => {
    const { app, lines, observed } = appWith();
    let reached = false;
    app.get('*', (c) => {
      reached = true;
      return ok(c, 'ok');
    });
    const answer = await app.request(`/${'a'.repeat(MAX_PATH_LENGTH)}`);
    expect(answer.status).toBe(414);
    expect(((await answer.json()) as { description: string }).description).toMatch(/over the limit of 2048/);
    expect(reached).toBe(false);
    expect(lines).toHaveLength(1);
    expect(observed[0]?.status).toBe(414);
  });

  it('warns in Sandbox-Warning when Sandbox-Fault is sent where faults do not apply, on any answer', async () => {
    const { app } = appWith();
    app.get('/sandbox/page', (c) => c.html('<p>hi</p>'));
    app.get('/sandbox/v1/clock', (c) => ok(c, 'ok'));
    for (const path of ['/sandbox/page', '/sandbox/v1/clock']) {
      const answer = await app.request(path, { headers: { 'Sandbox-Fault': 'error=500' } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('sandbox-warning')).toMatch(/^Sandbox-Fault ignored: faults apply to the public API only/);
    }
  });
});
