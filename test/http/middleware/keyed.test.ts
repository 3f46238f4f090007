/**
 * The keyed layer on a small app of its own (everyRequest outside it, as in the app): the key
 * names the merchant, and only the parts that apply to a request are entered.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppEnv } from '../../../src/http/context.js';
import { ok } from '../../../src/http/envelope.js';
import { answerError } from '../../../src/http/errors.js';
import { everyRequest } from '../../../src/http/middleware/every-request.js';
import { keyedRequests } from '../../../src/http/middleware/keyed.js';
import type { Sandbox } from '../../../src/index.js';
import { DEMO_KEY, DEMO_PAYEE, memorySandbox } from '../../helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sandbox?.close();
  sandbox = undefined;
});

/** A small app: GET and POST /openapi/v1/thing behind the keyed layer (faults on), counting handler runs. */
async function smallApp() {
  sandbox = await memorySandbox();
  const { services } = sandbox;
  const runs = { get: 0, post: 0 };
  const serves = (c: { req: { path: string } }) => c.req.path === '/openapi/v1/thing';
  const app = new Hono<AppEnv>();
  app.use('*', everyRequest(services, serves));
  app.use('/openapi/v1/*', keyedRequests({ serves, faults: { serves, allowOf: () => 'GET, HEAD, POST' } }));
  app.get('/openapi/v1/thing', (c) => {
    runs.get++;
    return ok(c, `read by ${c.get('merchant').payeeId}`);
  });
  app.post('/openapi/v1/thing', (c) => {
    runs.post++;
    return ok(c, `changed, run ${runs.post}`);
  });
  app.notFound((c) => c.json({ code: 404, description: 'no route' }, 404));
  app.onError(answerError);
  return { app, services, runs };
}

const keyed = (headers: Record<string, string> = {}) => ({ headers: { 'Service-Api-Key': DEMO_KEY, ...headers } });

describe('keyedRequests', () => {
  it('enters no rate limit, no Idempotency-Key and no fault rule for a plain GET', async () => {
    const { app, services, runs } = await smallApp();
    const take = vi.spyOn(services.store.rateWindows, 'take');
    const begin = vi.spyOn(services.idempotency, 'begin');
    const draw = vi.spyOn(services.faultRules, 'draw');
    const answer = await app.request('/openapi/v1/thing', keyed({ 'Idempotency-Key': 'k-1' }));
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { description: string }).description).toBe(`read by ${DEMO_PAYEE}`);
    expect(runs.get).toBe(1);
    expect(take).not.toHaveBeenCalled();
    expect(begin).not.toHaveBeenCalled();
    expect(draw).not.toHaveBeenCalled();
  });

  it('answers 401 without a valid key on a served route, and lets an unserved one answer its 404 unauthenticated', async () => {
    const { app, runs } = await smallApp();
    const refused = await app.request('/openapi/v1/thing', { headers: { 'Service-Api-Key': 'sk_wrong' } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { description: string }).description).toMatch(/Service-Api-Key/);
    expect((await app.request('/openapi/v1/typo', { headers: { 'Service-Api-Key': 'sk_wrong' } })).status).toBe(404);
    expect(runs.get).toBe(0);
  });

  it('journals a keyed request once, with its answer, and not one refused for its key', async () => {
    const { app, services } = await smallApp();
    await app.request('/openapi/v1/thing', keyed({ 'Request-Id': 'keyed-1' }));
    await app.request('/openapi/v1/thing', { headers: { 'Service-Api-Key': 'sk_wrong', 'Request-Id': 'unkeyed-1' } });
    const entries = await services.journal.list(DEMO_PAYEE, { limit: 10 });
    expect(entries.map((e) => e.requestId)).toEqual(['keyed-1']);
    expect(entries[0]?.responseBody).toContain(`read by ${DEMO_PAYEE}`);
  });

  it('replays a POST with the same Idempotency-Key instead of running it again', async () => {
    const { app, runs } = await smallApp();
    const first = await app.request('/openapi/v1/thing', { method: 'POST', ...keyed({ 'Idempotency-Key': 'once' }) });
    const again = await app.request('/openapi/v1/thing', { method: 'POST', ...keyed({ 'Idempotency-Key': 'once' }) });
    expect(await again.text()).toBe(await first.text());
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.post).toBe(1);
  });

  it('refuses a malformed Idempotency-Key with a 400 that says what a key may be, running nothing', async () => {
    const { app, runs } = await smallApp();
    const answer = await app.request('/openapi/v1/thing', { method: 'POST', ...keyed({ 'Idempotency-Key': 'é'.repeat(3) }) });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { description: string }).description).toMatch(/1 to 255 printable ASCII/);
    expect(runs.post).toBe(0);
  });

  it('applies a Sandbox-Fault error before the handler runs, and notes it in the journal', async () => {
    const { app, services, runs } = await smallApp();
    const answer = await app.request('/openapi/v1/thing', keyed({ 'Sandbox-Fault': 'error=503' }));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(runs.get).toBe(0);
    const [entry] = await services.journal.list(DEMO_PAYEE, { limit: 1 });
    expect(entry?.fault).toBe('error=503');
  });

  it('takes the rate limit only for a merchant that set one, and journals the 429', async () => {
    const { app, services, runs } = await smallApp();
    const { apiKey, merchant } = await services.merchants.enroll({ rateLimitPerSecond: 1 });
    const headers = { 'Service-Api-Key': apiKey };
    expect((await app.request('/openapi/v1/thing', { headers })).status).toBe(200);
    const limited = await app.request('/openapi/v1/thing', { headers });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(((await limited.json()) as { description: string }).description).toMatch(/may send 1 request per second/);
    expect(runs.get).toBe(1);
    const entries = await services.journal.list(merchant.payeeId, { limit: 10 });
    expect(entries.map((e) => e.status)).toEqual([429, 200]);
  });
});
