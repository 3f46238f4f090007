/**
 * SPEC 18: SANDBOX_METRICS_TOKEN closes /metrics to everyone without `Authorization: Bearer
 * <token>`. A refusal is a 401 envelope saying what to send (whatever SANDBOX_HTTP_STATUS says),
 * never the metrics, never the token, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../src/serve-command.js';
import type { Sandbox } from '../../src/index.js';
import { call, expectRefusedUnchanged, listeningSandbox, memorySandbox, toAnswer } from '../support/http.js';
import type { Answer } from '../support/http.js';

const TOKEN = 'metrics-secret-7Yx2-long-enough';

function expectRefusal(answer: Answer, reason: RegExp): void {
  expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
  expect(answer.body.description).toMatch(reason);
  expect(answer.body.description).toMatch(/Authorization: Bearer <token>.*SANDBOX_METRICS_TOKEN/);
  expect(answer.text).not.toContain(TOKEN);
  expect(answer.text).not.toContain('payreq_http_requests_total');
}

describe('GET /metrics with SANDBOX_METRICS_TOKEN', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await memorySandbox({ config: { metricsToken: TOKEN } });
  });
  afterAll(() => sandbox.close());

  it('answers 401 without an Authorization header, saying what to send, and changes nothing', async () => {
    const answer = await expectRefusedUnchanged(sandbox, 'GET', '/metrics', { key: null }, 401, /no Authorization header was sent/);
    expectRefusal(answer, /needs the metrics token/);
  });

  it('answers 401 to a wrong token and to another scheme, never repeating what was sent or the token', async () => {
    const near = `${TOKEN.slice(0, -1)}X`;
    const wrong = await expectRefusedUnchanged(sandbox, 'GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${near}` } }, 401);
    expectRefusal(wrong, /bearer token sent is not the metrics token/);
    expect(wrong.text).not.toContain(near);
    const longer = await call(sandbox, 'GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${TOKEN}${TOKEN}` } });
    expect(longer.status).toBe(401);
    const basic = await expectRefusedUnchanged(sandbox, 'GET', '/metrics', { key: null, headers: { Authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` } }, 401);
    expectRefusal(basic, /not of the form "Bearer <token>"/);
    // The merchant's API key is not the metrics token either.
    expect((await call(sandbox, 'GET', '/metrics')).status).toBe(401);
  });

  it('serves the Prometheus text to the token', async () => {
    const answer = await call(sandbox, 'GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(answer.text).toContain('payreq_http_requests_total{method="GET",route="/metrics",status="401"}');
  });

  it('answers HTTP 401 also with SANDBOX_HTTP_STATUS=always-200: a scraper reads the status', async () => {
    const always200 = await memorySandbox({ config: { metricsToken: TOKEN, httpStatusMode: 'always-200' } });
    try {
      const answer = await call(always200, 'GET', '/metrics', { key: null });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe(401);
      expect((await call(always200, 'GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    } finally {
      await always200.close();
    }
  });

  it('is declared in /openapi.json: the 401, and the MetricsToken bearer scheme as optional', async () => {
    const doc = (await call(sandbox, 'GET', '/openapi.json', { key: null })).body;
    const operation = doc.paths['/metrics'].get;
    expect(operation.security).toEqual([{}, { MetricsToken: [] }]);
    expect(operation.responses).toHaveProperty('401');
    expect(doc.components.securitySchemes.MetricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('is read from the environment', () => {
    expect(configFromEnv({ SANDBOX_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(configFromEnv({}).metricsToken).toBeUndefined();
    expect(configFromEnv({ SANDBOX_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
  });
});

describe('GET /metrics with a token, over a real socket', () => {
  const live = listeningSandbox({ config: { metricsToken: TOKEN } });

  it('answers 401 to a scraper without the token and 200 with it', async () => {
    const base = `http://127.0.0.1:${live.server.port}`;
    const refused = await toAnswer(await fetch(`${base}/metrics`));
    expect(refused.status).toBe(401);
    expectRefusal(refused, /needs the metrics token/);
    const served = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('# TYPE payreq_http_requests_total counter');
  });
});
