/**
 * SPEC 18: a path over 2,048 characters answers 414 in the envelope before any route, key check,
 * journal entry or fault-rule match sees it, on known and unknown routes alike.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, call, createBody, expectEnvelope, listeningSandbox, sandboxPerTest, stateOf } from '../support/http.js';
import { MAX_PATH_LENGTH, sentPathLength } from '../../src/http/middleware/path-length.js';

const STATUS = '/openapi/v1/payments/payment/';
/** A path of exactly `length` characters under `prefix`. */
const pathOf = (prefix: string, length: number) => prefix + 'a'.repeat(length - prefix.length);

function expectTooLong(answer: Awaited<ReturnType<typeof call>>, length: number): void {
  expectEnvelope(answer, 414);
  expect(Object.keys(answer.body).sort()).toEqual(['code', 'description']);
  expect(answer.body.description).toBe(
    `The request path is ${length} characters long, over the limit of 2048: no route of the sandbox is that long (a payment_id has 26 characters); check how the URL is built, and send data in the body or the query, not the path.`,
  );
}

describe('paths over 2,048 characters', () => {
  const each = sandboxPerTest();

  it('answer 414 on a known route, an unknown one, a control route and a page, with or without a key', async () => {
    const cases: [string, string, string | null][] = [
      ['GET', pathOf(STATUS, 2_049), DEMO_KEY],
      ['POST', `${pathOf(STATUS, 2_049 + 7)}/cancel`, DEMO_KEY],
      ['GET', pathOf('/nowhere/', 10_000), null],
      ['DELETE', pathOf('/sandbox/v1/faults/', 2_100), DEMO_KEY],
      ['GET', pathOf('/sandbox/pay/', 3_000), null],
      ['PATCH', pathOf('/v1/payments/payment/', 2_049), 'sk_sandbox_unknown'],
    ];
    for (const [method, path, key] of cases) {
      const answer = await call(each.sandbox, method, path, { key, ...(method === 'POST' ? { body: { reason: 'x' } } : {}) });
      expectTooLong(answer, path.length);
      expect(answer.headers.get('request-id')).toMatch(/^req_/);
    }
  });

  it('count the path as sent: percent-escapes as written, the query not at all; 2,048 is still served', async () => {
    expectEnvelope(await call(each.sandbox, 'GET', pathOf(STATUS, MAX_PATH_LENGTH)), 404);
    expectEnvelope(await call(each.sandbox, 'GET', `${STATUS}pay_x?${'q'.repeat(5_000)}=1`), 404);
    const escaped = `${STATUS}${'%41'.repeat(700)}`;
    expectTooLong(await call(each.sandbox, 'GET', escaped), escaped.length);
    expect(sentPathLength('http://h:1/a/b?c=/d')).toBe(4);
    expect(sentPathLength('http://h')).toBe(0);
  });

  it('change nothing: no payment, no journal entry, no fault-rule match counted', async () => {
    const rule = await call(each.sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: '*', path: '/openapi/v1/*' }, fault: 'error=503' } });
    expectEnvelope(rule, 200);
    const before = await stateOf(each.sandbox);
    const journalBefore = (await call(each.sandbox, 'GET', '/sandbox/v1/requests')).body.requests.length;

    const long = pathOf('/openapi/v1/payments/payment/', 4_000);
    expectTooLong(await call(each.sandbox, 'POST', long, { body: createBody() }), long.length);
    expectTooLong(await call(each.sandbox, 'GET', long, { headers: { 'Sandbox-Fault': 'error=500' } }), long.length);

    expect(await stateOf(each.sandbox)).toBe(before);
    const journal = (await call(each.sandbox, 'GET', '/sandbox/v1/requests')).body.requests as { path: string }[];
    // The two stateOf reads and the journal read are journaled; the long requests are not.
    expect(journal.length).toBeGreaterThan(journalBefore);
    expect(journal.some((entry) => entry.path.length > MAX_PATH_LENGTH)).toBe(false);
    const rules = await call(each.sandbox, 'GET', '/sandbox/v1/faults');
    expect(rules.body.rules[0]).toMatchObject({ matched: 0, fired: 0 });
  });

  it('are counted in /metrics under the route pattern or "unmatched", never under the path', async () => {
    await call(each.sandbox, 'GET', pathOf(STATUS, 2_500));
    await call(each.sandbox, 'GET', pathOf('/zzz/', 2_500));
    const text = await (await each.sandbox.fetch(new Request('http://sandbox/metrics'))).text();
    expect(text).not.toContain('aaaaaaaaaa');
    expect(text).toContain('route="/openapi/v1/payments/payment/:payment_id",status="414"} 1');
    expect(text).toContain('route="unmatched",status="414"} 1');
  });
});

describe('paths over 2,048 characters through a real listening server', () => {
  const live = listeningSandbox();

  it('answer 414 in the envelope over HTTP', async () => {
    const path = pathOf(STATUS, 2_049);
    const res = await fetch(`${live.server.url}${path}`, { headers: { 'Service-Api-Key': DEMO_KEY } });
    const text = await res.text();
    expect(res.status).toBe(414);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toEqual({ code: 414, description: expect.stringContaining('2049 characters long, over the limit of 2048') });
  });
});
