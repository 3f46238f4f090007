/** Faults apply to the public API only: a rule that could never fire is refused, a header that does nothing is named. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { call, createBody, expectEnvelope, quietSandbox } from '../../support/http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await quietSandbox();
});
afterAll(() => sandbox.close());

async function rules(): Promise<unknown[]> {
  return (await call(sandbox, 'GET', '/sandbox/v1/faults')).body.rules as unknown[];
}

describe('a fault rule no public request can match is refused', () => {
  it.each(['/sandbox/v1/payments', '/sandbox/*', '/x', '/nothing', '/healthz', '/openapi/v2/*', '/OPENAPI/v1/*', '/v1', '/openapi/v1', 'v1/*', '/v2*'])(
    'match.path %s: 400 saying where rules apply, and no rule is added',
    async (path) => {
      const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { path }, fault: 'error=500' } });
      expectEnvelope(answer, 400);
      expect(answer.body.description).toContain(`match.path ${JSON.stringify(path)} can never match: fault rules apply to the public API paths only (/openapi/v1/..., /v1/...)`);
      expect(answer.body.errors).toEqual([{ field: 'match.path', message: expect.stringContaining('can never match') }]);
      expect(await rules()).toEqual([]);
    },
  );

  it.each(['/openapi/v1/payments/payment', '/v1/payments/payment/*/cancel', '*', '/*', '*/payments/payment', '/op*', '/v*', '/openapi/v1/'])('match.path %s can match a public path: added', async (path) => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { path }, fault: 'latency=1' } });
    expectEnvelope(answer, 200);
    expect(answer.body.rule.match.path).toBe(path);
    await call(sandbox, 'DELETE', '/sandbox/v1/faults');
  });

  it('the refusal is one of the body problems: with another bad field, both are listed', async () => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { path: '/sandbox/v1/payments' }, fault: 'error=500', probability: 2 } });
    expectEnvelope(answer, 400);
    expect((answer.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['match.path', 'probability']);
  });
});

describe('a rule no public route can meet is taken, and Sandbox-Warning says it never fires', () => {
  const add = (match: Record<string, string>) => call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match, fault: 'error=500' } });
  afterEach(() => call(sandbox, 'DELETE', '/sandbox/v1/faults'));

  it('a path no route is at, with the route meant', async () => {
    const answer = await add({ path: '/openapi/v1/payments/paymnet/*/cancel' });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBe('match * "/openapi/v1/payments/paymnet/*/cancel" never fires: no public route is at that path (did you mean "/openapi/v1/payments/payment/*/cancel"?)');
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?path=/sandbox/v1/faults&limit=1');
    expect(journal.body.requests[0].warnings).toEqual([answer.headers.get('sandbox-warning')]);
  });

  it('a path far from every route: no guess', async () => {
    const answer = await add({ path: '/v1/refunds/*' });
    expect(answer.headers.get('sandbox-warning')).toBe('match * "/v1/refunds/*" never fires: no public route is at that path');
  });

  it('a method the routes at that path do not take', async () => {
    const answer = await add({ method: 'get', path: '/openapi/v1/payments/payment' });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBe('match GET "/openapi/v1/payments/payment" never fires: no public route takes GET there (POST does)');
  });

  it.each([
    ['*', '*'],
    ['POST', '/openapi/v1/payments/payment'],
    ['GET', '/v1/payments/payment/*'],
    ['HEAD', '/openapi/v1/payments/payment/pay_*'],
    ['POST', '*/cancel'],
    ['*', '/openapi/v1/payments/payment/*/*'],
  ])('%s %s meets a route: no warning', async (method, path) => {
    const answer = await add({ method, path });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });

  it("with this merchant's share of the costly-work budget spent, the rule is taken and the answer says the path was not checked", async () => {
    // A sandbox of its own: the spent budget would withhold the other tests' suggestions.
    const spent = await quietSandbox();
    try {
      spent.services.costlyWork.spend('OTHER-MERCHANT', 10_000);
      const answer = await call(spent, 'POST', '/sandbox/v1/faults', { body: { match: { path: '/openapi/v1/payments/paymnet' }, fault: 'error=500' } });
      expectEnvelope(answer, 200);
      expect(answer.headers.get('sandbox-warning')).toBe("match.path not checked against the routes: that draws on this instance's CPU budget for costly work, and this merchant's share is spent");
      expect((await call(spent, 'GET', '/sandbox/v1/faults')).body.rules).toHaveLength(1);
    } finally {
      await spent.close();
    }
  });
});

describe('a Sandbox-Fault header where faults do not apply is named in Sandbox-Warning', () => {
  const note = (path: string) => `Sandbox-Fault ignored: faults apply to the public API only (/openapi/v1/..., /v1/...), not to ${path}`;

  it('a control route answers as usual, with the warning, in the header and the journal', async () => {
    const answer = await call(sandbox, 'GET', '/sandbox/v1/payments', { headers: { 'Sandbox-Fault': 'error=500' } });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBe(note('/sandbox/v1/payments'));
    const journal = await call(sandbox, 'GET', '/sandbox/v1/requests?path=/sandbox/v1/payments&limit=1');
    expect(journal.body.requests[0].warnings).toEqual([note('/sandbox/v1/payments')]);
  });

  it('beside other warnings of the same answer', async () => {
    const answer = await call(sandbox, 'POST', '/sandbox/v1/clock/advance', { body: { seconds: 1, minutes: 2 }, headers: { 'Sandbox-Fault': 'drop' } });
    expectEnvelope(answer, 200);
    expect(answer.headers.get('sandbox-warning')).toBe(`${note('/sandbox/v1/clock/advance')}; unknown field "minutes" ignored`);
  });

  it.each([
    ['health', '/healthz'],
    ['an unknown route', '/sandbox/v1/nowhere'],
    ['the contract document (not an envelope)', '/openapi.json'],
  ])('%s gets the warning too', async (_what, path) => {
    const answer = await call(sandbox, 'GET', path, { headers: { 'Sandbox-Fault': 'timeout' } });
    expect(answer.status).toBeLessThan(500);
    expect(answer.headers.get('sandbox-warning')).toBe(note(path));
  });

  it('a QR image (PNG, not an envelope) gets the warning too', async () => {
    const created = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody() });
    const path = new URL(created.body.qr_data.image_url as string).pathname;
    const answer = await sandbox.fetch(new Request(`http://sandbox.test${path}`, { headers: { 'Sandbox-Fault': 'error=500' } }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(answer.headers.get('sandbox-warning')).toBe(note(path));
  });

  it('a public route applies the header and warns of nothing', async () => {
    const answer = await call(sandbox, 'POST', '/openapi/v1/payments/payment', { body: createBody(), headers: { 'Sandbox-Fault': 'error=503' } });
    expectEnvelope(answer, 503);
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });

  it('without the header nothing is said', async () => {
    const answer = await call(sandbox, 'GET', '/sandbox/v1/payments');
    expect(answer.headers.get('sandbox-warning')).toBeNull();
  });
});
