/**
 * One record per request, completed once (SPEC 23): the journal entry, the readiness evidence,
 * the log line and the metrics of a request all read the same completed record, so they agree
 * on its status and latency, whatever answered it (a handler, a refusal, a fault before or
 * after commit, a held or a dropped answer).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RequestRecord } from '../../../src/http/request-record.js';
import type { Sandbox } from '../../../src/index.js';
import type { AnsweredRequest } from '../../../src/domain/readiness.js';
import { createBody, DEMO_KEY, memorySandbox } from '../../support/http.js';
import { capturedLog } from '../../support/log.js';
import type { CapturedLog } from '../../support/log.js';

const HOLD_MS = 400;
let sandbox: Sandbox;
let log: CapturedLog;
const evidence: AnsweredRequest[] = [];
const observed: { status: unknown; seconds: number; injected: boolean }[] = [];
let sent = 0;

beforeAll(async () => {
  log = capturedLog();
  sandbox = await memorySandbox({ log: log.log, config: { timeoutHoldMs: HOLD_MS } });
  const { readiness, metrics } = sandbox.services;
  const record = readiness.record.bind(readiness);
  vi.spyOn(readiness, 'record').mockImplementation((payeeId, request) => {
    evidence.push(request);
    return record(payeeId, request);
  });
  const observe = metrics!.observeRequest.bind(metrics);
  vi.spyOn(metrics!, 'observeRequest').mockImplementation((method, route, status, seconds, injected) => {
    observed.push({ status, seconds, injected: injected ?? false });
    observe(method, route, status, seconds, injected);
  });
});
afterAll(() => sandbox.close());

/** Sends one request in-process; what the client got (a status, or 'lost'), and its Request-Id. */
async function send(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const requestId = `rec-${++sent}`;
  const init: RequestInit = { method, headers: { 'Service-Api-Key': DEMO_KEY, 'Request-Id': requestId, 'Content-Type': 'application/json', ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const outcome = await sandbox.fetch(new Request(`http://sandbox.test${path}`, init)).then(
    async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }),
    () => 'lost' as const,
  );
  return { requestId, outcome, observedAt: observed.length };
}

/** The four readers' view of one request: the journal entry, the evidence, the log line, the metrics observation. */
async function readersOf(requestId: string) {
  const res = await sandbox.fetch(new Request('http://sandbox.test/sandbox/v1/requests?limit=500', { headers: { 'Service-Api-Key': DEMO_KEY } }));
  const entries = ((await res.json()) as { requests: { request_id: string; status: unknown; latency_ms: number }[] }).requests.filter((e) => e.request_id === requestId);
  const lines = (await log.requestLines()).filter((l) => l.request_id === requestId);
  const evidenced = evidence.filter((e) => e.ref === requestId);
  expect(entries).toHaveLength(1);
  expect(lines).toHaveLength(1);
  expect(evidenced).toHaveLength(1);
  return { entry: entries[0]!, line: lines[0]!, evidence: evidenced[0]! };
}

async function expectOneRecord(requestId: string, observation: { status: unknown; seconds: number; injected: boolean } | undefined, status: number | string) {
  const { entry, line, evidence: seen } = await readersOf(requestId);
  expect([entry.status, seen.status, line.status, observation?.status]).toEqual([status, status, status, status]);
  expect(seen.latencyMs).toBe(entry.latency_ms);
  expect(line.latency_ms).toBe(entry.latency_ms);
  expect(observation!.seconds * 1000).toBeCloseTo(entry.latency_ms, 6);
  return entry;
}

describe('the journal, the evidence, the log line and the metrics read one completed record', () => {
  it('a create and a status read: the same status and latency in all four', async () => {
    const create = await send('POST', '/openapi/v1/payments/payment', {}, createBody());
    expect(create.outcome).toMatchObject({ status: 200 });
    await expectOneRecord(create.requestId, observed[create.observedAt - 1], 200);
    const id = (create.outcome as { body: Record<string, unknown> }).body.payment_id as string;
    const read = await send('GET', `/openapi/v1/payments/payment/${id}`);
    await expectOneRecord(read.requestId, observed[read.observedAt - 1], 200);
    expect(observed[read.observedAt - 1]!.injected).toBe(false);
  });

  it('a refused create (400) and an injected error before commit (503)', async () => {
    const refused = await send('POST', '/openapi/v1/payments/payment', {}, { amount: 'ten' });
    expect(refused.outcome).toMatchObject({ status: 400 });
    await expectOneRecord(refused.requestId, observed[refused.observedAt - 1], 400);
    const injected = await send('POST', '/openapi/v1/payments/payment', { 'Sandbox-Fault': 'error=503' }, createBody());
    expect(injected.outcome).toMatchObject({ status: 503 });
    await expectOneRecord(injected.requestId, observed[injected.observedAt - 1], 503);
    expect(observed[injected.observedAt - 1]!.injected).toBe(true);
  });

  it('an error after commit: the spoiled answer, in all four', async () => {
    const spoiled = await send('POST', '/openapi/v1/payments/payment', { 'Sandbox-Fault': 'error-after-commit=500' }, createBody());
    expect(spoiled.outcome).toMatchObject({ status: 500 });
    const entry = await expectOneRecord(spoiled.requestId, observed[spoiled.observedAt - 1], 500);
    expect(entry).toMatchObject({ fault: 'error-after-commit=500' });
  });

  it('a held answer: "held" in all four, with the time to the answer, not the hold', async () => {
    const held = await send('POST', '/openapi/v1/payments/payment', { 'Sandbox-Fault': 'timeout' }, createBody());
    expect(held.outcome).toMatchObject({ status: 504 });
    const entry = await expectOneRecord(held.requestId, observed[held.observedAt - 1], 'held');
    expect(entry.latency_ms).toBeLessThan(HOLD_MS);
  });

  it('a dropped connection: "dropped" in all four', async () => {
    const dropped = await send('POST', '/openapi/v1/payments/payment', { 'Sandbox-Fault': 'drop' }, createBody());
    expect(dropped.outcome).toBe('lost');
    await expectOneRecord(dropped.requestId, observed[dropped.observedAt - 1], 'dropped');
  });
});

describe('RequestRecord', () => {
  it('is completed once: a second answer for the same request is refused', () => {
    const record = new RequestRecord('r-1', 'GET', '/x');
    const answer = { status: 200, latencyMs: 1, route: '/x', requestBody: null, responseBody: null, answerRef: undefined, answered: null, fault: null, warnings: [], keyedBy: undefined, payeeId: null };
    expect(record.answer).toBeUndefined();
    const completed = record.complete(answer);
    expect(record.answer).toBe(completed);
    expect(() => record.complete({ ...answer, status: 500 })).toThrow(/completed twice/);
    expect(record.answer).toBe(completed);
  });
});
