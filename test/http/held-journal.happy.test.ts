/**
 * SPEC 19 (issue 17): a held answer is journaled at once. A create held by a timeout fault (the
 * header, a rule, or amount 900.03) is in the journal as "held" as soon as its change is committed,
 * while the client still waits, and it is not journaled again when the hold ends. Memory store
 * (PostgreSQL with SANDBOX_TEST_STORE=postgres; two instances in held-journal.postgres.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { call, createBody, DEMO_KEY, DEMO_PAYEE, expectEnvelope, memorySandbox } from '../support/http.js';
import { entriesOf, heldEntry, holdCreate, overHttp } from '../support/held.js';
import type { Fetch, HeldCreate } from '../support/held.js';
import { until } from '../support/until.js';

const IN_PROCESS = 'http://sandbox.test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sandbox: Sandbox;
let fetchIn: Fetch;
beforeAll(async () => {
  // The hold outlasts every test: only the client giving up ends it.
  sandbox = await memorySandbox({ config: { timeoutHoldMs: 60_000 } });
  fetchIn = (request) => sandbox.fetch(request);
});
afterAll(() => sandbox.close());

/** The client gives up; then the server is done with the request (its place released, its last layers run). */
async function endHold(create: HeldCreate, on: Sandbox = sandbox): Promise<void> {
  await create.giveUp();
  await until(() => (on.services.held.count(DEMO_PAYEE) === 0 ? true : undefined), 'the hold to end');
  await sleep(50);
}

describe('a held create is journaled at once, as held', () => {
  it.each([
    ['the Sandbox-Fault header', { 'Sandbox-Fault': 'timeout' }, {}, 'timeout'],
    ['the header beside a latency', { 'Sandbox-Fault': 'latency=5, timeout' }, {}, 'latency=5, timeout'],
    ['the magic amount 900.03', {}, { amount: 900.03 }, 'timeout (magic amount 900.03)'],
  ] as const)('by %s: status held, the committed answer, the fault; once', async (_by, headers, overrides, fault) => {
    const body = createBody(overrides);
    const create = holdCreate(fetchIn, IN_PROCESS, DEMO_KEY, body, headers);
    const entry = await heldEntry(fetchIn, IN_PROCESS, DEMO_KEY, create);
    expect(entry).toMatchObject({ status: 'held', code: 200, fault, request_body: body });
    expect(entry.response_body).toMatchObject({ code: 200, payment_id: expect.stringMatching(/^pay_/) });
    // The change it reports is committed: the payment it names is there while the answer is held.
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${entry.response_body!.payment_id as string}`), 200);
    await endHold(create);
    expect(await create.outcome).not.toBe(200);
    expect(await entriesOf(fetchIn, IN_PROCESS, DEMO_KEY, create.requestId)).toEqual([entry]);
  });

  it('by a fault rule: the same, and the rule is used up', async () => {
    const rule = await call(sandbox, 'POST', '/sandbox/v1/faults', { body: { match: { method: 'POST', path: '/openapi/v1/payments/payment' }, fault: 'timeout', times: 1 } });
    expectEnvelope(rule, 200);
    try {
      const create = holdCreate(fetchIn, IN_PROCESS, DEMO_KEY, createBody());
      const entry = await heldEntry(fetchIn, IN_PROCESS, DEMO_KEY, create);
      expect(entry).toMatchObject({ status: 'held', code: 200, fault: 'timeout' });
      await endHold(create);
      expect(await entriesOf(fetchIn, IN_PROCESS, DEMO_KEY, create.requestId)).toHaveLength(1);
      expect((await call(sandbox, 'GET', '/sandbox/v1/faults')).body.rules[0]).toMatchObject({ fired: 1, times_left: 0 });
    } finally {
      await call(sandbox, 'DELETE', '/sandbox/v1/faults');
    }
  });

  it('the readiness report sees the lost create while it is held, and its recovery after', async () => {
    const other = await sandbox.control.enroll({ name: 'Held Readiness Shop' });
    const body = { ...createBody(), payee: other.payeeId };
    const create = holdCreate(fetchIn, IN_PROCESS, other.apiKey, body, { 'Sandbox-Fault': 'timeout' });
    const entry = await heldEntry(fetchIn, IN_PROCESS, other.apiKey, create);
    const check = async () => ((await call(sandbox, 'GET', '/sandbox/v1/readiness', { key: other.apiKey })).body.checks as { id: string; status: string; evidence: string[] }[]).find((c) => c.id === 'interrupted-create')!;
    expect(await check()).toMatchObject({ status: 'fail', evidence: [`${create.requestId} lost and never followed up`] });
    expectEnvelope(await call(sandbox, 'GET', `/openapi/v1/payments/payment/${entry.response_body!.payment_id as string}`, { key: other.apiKey }), 200);
    expect((await check()).status).toBe('pass');
    await create.giveUp();
  });
});

describe('a hold that runs to its end', () => {
  let short: Sandbox;
  beforeAll(async () => {
    short = await memorySandbox({ config: { timeoutHoldMs: 300 } });
  });
  afterAll(() => short.close());

  it('answers 504, and the journal keeps the one held entry (not updated, no second one)', async () => {
    const fetchShort: Fetch = (request) => short.fetch(request);
    const create = holdCreate(fetchShort, IN_PROCESS, DEMO_KEY, createBody(), { 'Sandbox-Fault': 'timeout' });
    expect(await create.outcome).toBe(504);
    await sleep(50);
    const entries = await entriesOf(fetchShort, IN_PROCESS, DEMO_KEY, create.requestId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 'held', code: 200, fault: 'timeout' });
    const by504 = await call(short, 'GET', '/sandbox/v1/requests?status=504');
    expect(by504.body.requests).toEqual([]);
  });
});

describe('over a real listening server', () => {
  let server: { url: string };
  beforeAll(async () => {
    server = await sandbox.listen(0, '127.0.0.1');
  });

  it('the held entry is read over another connection while the client still waits; one entry after it gives up', async () => {
    const create = holdCreate(overHttp, server.url, DEMO_KEY, createBody(), { 'Sandbox-Fault': 'timeout' });
    const entry = await heldEntry(fetch, server.url, DEMO_KEY, create);
    expect(entry).toMatchObject({ status: 'held', code: 200, fault: 'timeout' });
    await endHold(create);
    expect(await create.outcome).toBe('lost');
    expect(await entriesOf(fetch, server.url, DEMO_KEY, create.requestId)).toEqual([entry]);
  });
});
