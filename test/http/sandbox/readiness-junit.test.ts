/** GET /sandbox/v1/readiness/junit: the readiness report as the JUnit file the CLI writes, keyed like every control route. */
import { describe, expect, it } from 'vitest';
import { junitOf } from '../../../src/readiness-command.js';
import { call, createPayment, expectEnvelope, listeningSandbox, sandboxPerTest } from '../../support/http.js';
import { DEMO_KEY } from '../../helpers.js';

const each = sandboxPerTest();

describe('GET /sandbox/v1/readiness/junit', () => {
  it('answers the same checks as the JSON report, one testcase each, as an attachment', async () => {
    await createPayment(each.sandbox);
    const report = await call(each.sandbox, 'GET', '/sandbox/v1/readiness');
    const res = await each.sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/readiness/junit', { headers: { 'Service-Api-Key': DEMO_KEY } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="readiness-DEMO-MERCHANT-1.xml"');
    const xml = await res.text();
    expect(xml).toBe(junitOf(report.body as Parameters<typeof junitOf>[0], 'http://sandbox.test'));
    expect(xml).toContain('<testcase name="create" classname="readiness" >');
  });

  it('answers 401 in the envelope without a key', async () => {
    expectEnvelope(await call(each.sandbox, 'GET', '/sandbox/v1/readiness/junit', { key: null }), 401);
  });

  it('is documented in /openapi.json as application/xml', async () => {
    const doc = (await call(each.sandbox, 'GET', '/openapi.json')).body as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }> };
    expect(Object.keys(doc.paths['/sandbox/v1/readiness/junit']!.get.responses['200']!.content)).toEqual(['application/xml']);
  });
});

describe('over a real socket', () => {
  const live = listeningSandbox();
  it('serves the file', async () => {
    const res = await fetch(`${live.server.url}/sandbox/v1/readiness/junit`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<testsuites name="payreq-sandbox readiness"');
  });
});
