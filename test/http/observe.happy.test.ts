/** SPEC 15: every answer names its request (Request-Id), /metrics counts by route pattern, the journal keeps the id. */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, call, createBody, memorySandbox, sandboxPerTest } from '../support/http.js';

describe('Request-Id', () => {
  const each = sandboxPerTest();

  it('is on every answer, JSON or not, and differs per request', async () => {
    const first = await call(each.sandbox, 'GET', '/sandbox/v1/payments');
    const second = await call(each.sandbox, 'GET', '/nope');
    const page = await each.sandbox.fetch(new Request('http://sandbox/sandbox'));
    const ids = [first.headers.get('request-id'), second.headers.get('request-id'), page.headers.get('request-id')];
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it("keeps a sane id the client sent, and draws its own for one that is not", async () => {
    expect((await call(each.sandbox, 'GET', '/sandbox/v1/payments', { headers: { 'Request-Id': 'client-42.a' } })).headers.get('request-id')).toBe('client-42.a');
    const odd = await call(each.sandbox, 'GET', '/sandbox/v1/payments', { headers: { 'Request-Id': 'x'.repeat(65) } });
    expect(odd.headers.get('request-id')).toMatch(/^req_/);
  });

  it('is kept in the journal entry of the request', async () => {
    const created = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
    const journal = await call(each.sandbox, 'GET', '/sandbox/v1/requests?limit=1');
    expect(journal.body.requests[0]).toMatchObject({ method: 'POST', request_id: created.headers.get('request-id') });
  });
});

describe('GET /metrics', () => {
  const each = sandboxPerTest();

  it('counts requests by route pattern and status, payments by event, store writes: never an id or a key', async () => {
    const created = await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
    const id = created.body.payment_id as string;
    await call(each.sandbox, 'GET', `/openapi/v1/payments/payment/${id}`);
    await call(each.sandbox, 'POST', `/openapi/v1/payments/payment/${id}/cancel`, { body: { reason: 'changed mind' } });
    await call(each.sandbox, 'GET', '/openapi/v1/payments/payment/pay_unknown');
    const answer = await each.sandbox.fetch(new Request('http://sandbox/metrics'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    expect(text).toContain('payreq_http_requests_total{method="POST",route="/openapi/v1/payments/payment",status="200"} 1');
    expect(text).toContain('payreq_http_requests_total{method="GET",route="/openapi/v1/payments/payment/:payment_id",status="200"} 1');
    expect(text).toContain('payreq_http_requests_total{method="GET",route="/openapi/v1/payments/payment/:payment_id",status="404"} 1');
    expect(text).toContain('payreq_payment_events_total{event="created",status="P"} 1');
    expect(text).toContain('payreq_payment_events_total{event="cancelled",status="V"} 1');
    expect(text).toMatch(/payreq_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/openapi\/v1\/payments\/payment",status="200"\} \d/);
    expect(text).toContain(`payreq_store_write_duration_seconds_count{store="${each.sandbox.services.store.kind}",operation="update"} 1`);
    for (const secret of [id, DEMO_KEY, created.body.payment_token as string, 'pay_unknown']) expect(text).not.toContain(secret);
  });

  it('labels answers given by middleware (no key, an injected fault, a bad header) with the route they were sent to', async () => {
    await call(each.sandbox, 'GET', '/openapi/v1/payments/payment/pay_x', { key: null });
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Sandbox-Fault': 'error=503' } });
    await call(each.sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Idempotency-Key': 'bad key \u00e9' } });
    await call(each.sandbox, 'PATCH', '/openapi/v1/payments/payment');
    await call(each.sandbox, 'GET', '/openapi/v1/nowhere');
    const text = await (await each.sandbox.fetch(new Request('http://sandbox/metrics'))).text();
    expect(text).toContain('payreq_http_requests_total{method="GET",route="/openapi/v1/payments/payment/:payment_id",status="401"} 1');
    expect(text).toContain('payreq_http_requests_total{method="POST",route="/openapi/v1/payments/payment",status="503"} 1');
    expect(text).toContain('payreq_http_requests_total{method="POST",route="/openapi/v1/payments/payment",status="400"} 1');
    expect(text).toContain('payreq_http_requests_total{method="PATCH",route="/openapi/v1/payments/payment",status="405"} 1');
    // Only what matches no route at all stays unmatched.
    expect(text).toContain('payreq_http_requests_total{method="GET",route="unmatched",status="404"} 1');
  });

  it('is not served with SANDBOX_METRICS=off', async () => {
    const sandbox = await memorySandbox({ config: { metrics: false } });
    try {
      const answer = await call(sandbox, 'GET', '/metrics', { key: null });
      expect(answer.status).toBe(404);
      expect(answer.body.description).toMatch(/SANDBOX_METRICS=off/);
    } finally {
      await sandbox.close();
    }
  });
});
